// A long list of names, looked up by binary search over one sorted string: the 98,883 PyPI names
// of data/catalogue/registry-pypi.txt took about 8 MB of heap as a Set of strings (resident in
// every process that classifies, the server included), and take 1.8 MB this way.

/** What the classifier asks of a name list: membership, and the names themselves. */
export interface Names extends Iterable<string> {
  has(name: string): boolean;
}

export class NameList implements Names {
  /** The names, sorted, each followed by a newline. */
  private readonly text: string;
  /** Where each name starts in `text`, and one past the end. */
  private readonly starts: Uint32Array;

  constructor(names: Iterable<string>) {
    const sorted = [...new Set(names)].filter(Boolean).sort();
    this.text = sorted.map((name) => `${name}\n`).join('');
    this.starts = new Uint32Array(sorted.length + 1);
    for (let i = 0, at = 0; i < sorted.length; i++) this.starts[i + 1] = at += sorted[i]!.length + 1;
  }

  get size(): number {
    return this.starts.length - 1;
  }

  private nameAt(i: number): string {
    return this.text.slice(this.starts[i], this.starts[i + 1]! - 1);
  }

  has(name: string): boolean {
    let low = 0;
    let high = this.size - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.nameAt(middle);
      if (found === name) return true;
      if (found < name) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.size; i++) yield this.nameAt(i);
  }
}
