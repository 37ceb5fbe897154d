// osv-zip: an OSV ecosystem export (<ecosystem>/all.zip, one OSV JSON per entry), read entry by
// entry. An entry's fingerprint is its CRC-32 and size from the central directory, so an unchanged
// record is skipped without being inflated or parsed.
import { text } from 'node:stream/consumers';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { SourceError } from './fetch.js';
import type { SourceRecordEntry } from './records.js';

export const maxEntryBytes = 16 * 1024 * 1024;

function nextEntry(zip: ZipFile): Promise<Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: Entry) => (cleanup(), resolve(entry));
    const onEnd = () => (cleanup(), resolve(null));
    const onError = (err: Error) => (cleanup(), reject(new SourceError(`corrupt zip: ${err.message}`)));
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

export async function openOsvZip(path: string): Promise<{ total: number; entries: AsyncIterable<SourceRecordEntry>; close: () => void }> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true });
  } catch (err) {
    throw new SourceError(`not a readable zip file: ${(err as Error).message}`);
  }
  async function* entries(): AsyncIterable<SourceRecordEntry> {
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      const current = entry;
      if (current.fileName.endsWith('/') || !current.fileName.endsWith('.json')) continue;
      yield {
        key: current.fileName,
        fingerprint: `${current.crc32.toString(16)}:${current.uncompressedSize}`,
        read: async () => {
          if (current.uncompressedSize > maxEntryBytes) throw new Error(`entry is ${current.uncompressedSize} bytes, over ${maxEntryBytes}`);
          const body = await text(await zip.openReadStreamPromise(current));
          try {
            return JSON.parse(body) as unknown;
          } catch {
            throw new Error('not valid JSON');
          }
        },
      };
    }
  }
  return { total: zip.entryCount, entries: entries(), close: () => zip.close() };
}
