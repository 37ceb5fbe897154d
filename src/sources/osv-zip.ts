// osv-zip: an OSV ecosystem export (<ecosystem>/all.zip, one OSV JSON per entry), read entry by
// entry. An entry's fingerprint is its CRC-32 and size from the central directory, so an unchanged
// record is skipped without being inflated or parsed.
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { inflateRaw, inflateRawSync } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { SourceError } from './fetch.js';
import { parseRecordBytes } from './record-parser.js';
import { maxRecordBytes } from './record-size.js';
import type { SourceRecordEntry } from './records.js';

/**
 * Entries at least this large (compressed) are inflated on libuv's thread pool rather than on the
 * main thread: an entry of a MB is milliseconds of inflate that every request would wait behind.
 * Smaller ones (nearly all: records of a few KB) stay synchronous, where a thread-pool round trip
 * would cost more than the inflate.
 */
const inflateOffThreadBytes = 64 * 1024;
const inflateRawOffThread = promisify(inflateRaw);

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

/**
 * The zip's bytes through a window of a MB. Entries' local headers and data lie in the order
 * the central directory lists them, so nearly every entry is read from memory: yauzl's own
 * reading costs two file reads and a stream pipeline (with an inflate stream) per entry, which
 * was a tenth of a sync's CPU for records of a few KB. A larger window saves few reads (one per
 * MB already) and each one replaced stays in memory until a collection frees it.
 */
class WindowedFile {
  private window = Buffer.alloc(0);
  private start = 0;
  constructor(
    private readonly file: FileHandle,
    private readonly windowBytes = 1024 * 1024,
  ) {}

  /** `length` bytes at `position`: a view of the window (each window is a new buffer, so views stay valid). */
  async bytes(position: number, length: number): Promise<Buffer> {
    if (position < this.start || position + length > this.start + this.window.length) {
      const buffer = Buffer.allocUnsafe(Math.max(this.windowBytes, length));
      const { bytesRead } = await this.file.read(buffer, 0, buffer.length, position);
      this.window = buffer.subarray(0, bytesRead);
      this.start = position;
      if (bytesRead < length) throw new Error('unexpected end of zip file');
    }
    return this.window.subarray(position - this.start, position - this.start + length);
  }
}

/** yauzl's reads (the end record, then the central directory entry by entry) through a window of their own. */
class WindowedReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly file: WindowedFile,
    private readonly handle: FileHandle,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const file = this.file;
    return Readable.from(
      (async function* () {
        yield Buffer.from(await file.bytes(start, end - start));
      })(),
    );
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    this.file.bytes(position, length).then(
      (bytes) => {
        bytes.copy(buffer, offset);
        callback(null);
      },
      (err: Error) => callback(err),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    this.handle.close().then(() => callback(null), callback);
  }
}

const localHeaderSignature = 0x04034b50;

/**
 * An entry's content, inflated in one call (entries are records of a few KB; one over
 * maxRecordBytes is never read: records.ts skips it by the size the directory gives).
 */
async function entryBytes(file: WindowedFile, entry: Entry): Promise<Buffer> {
  if (entry.isEncrypted()) throw new Error('entry is encrypted');
  const header = await file.bytes(entry.relativeOffsetOfLocalHeader, 30);
  if (header.readUInt32LE(0) !== localHeaderSignature) throw new Error('invalid local file header signature');
  const dataStart = entry.relativeOffsetOfLocalHeader + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  const stored = await file.bytes(dataStart, entry.compressedSize);
  let body: Buffer;
  if (entry.compressionMethod === 0) body = stored;
  else if (entry.compressionMethod === 8) {
    // Inflated into one buffer of the size the directory gives: zlib's default, a 16 KB buffer per
    // entry of which the record (often under 1 KB) is a view, kept 16 KB of native memory alive
    // per record until a collection swept it, and left malloc's heap fragmented after a sync.
    const options = { maxOutputLength: maxRecordBytes, chunkSize: Math.max(64, Math.min(entry.uncompressedSize, maxRecordBytes)) };
    body = entry.compressedSize >= inflateOffThreadBytes ? await inflateRawOffThread(stored, options) : inflateRawSync(stored, options);
  } else throw new Error(`unsupported compression method ${entry.compressionMethod}`);
  if (body.length !== entry.uncompressedSize) throw new Error(`entry is ${body.length} bytes, its directory says ${entry.uncompressedSize}`);
  return body;
}

export async function openOsvZip(path: string): Promise<{ total: number; entries: AsyncIterable<SourceRecordEntry>; close: () => void }> {
  let zip: ZipFile;
  let handle: FileHandle | undefined;
  try {
    handle = await open(path);
    const { size } = await handle.stat();
    // Two windows on one file: the central directory is at its end, the entries' data before it.
    const directory = new WindowedReader(new WindowedFile(handle), handle);
    zip = await yauzl.fromRandomAccessReaderPromise(directory, size, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true });
  } catch (err) {
    await handle?.close().catch(() => {});
    throw new SourceError(`not a readable zip file: ${(err as Error).message}`);
  }
  const file = new WindowedFile(handle);
  async function* entries(): AsyncIterable<SourceRecordEntry> {
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      const current = entry;
      if (current.fileName.endsWith('/') || !current.fileName.endsWith('.json')) continue;
      yield {
        key: current.fileName,
        fingerprint: `${current.crc32.toString(16)}:${current.uncompressedSize}`,
        bytes: current.uncompressedSize,
        read: async () => parseRecordBytes(await entryBytes(file, current)),
      };
    }
  }
  return { total: zip.entryCount, entries: entries(), close: () => zip.close() };
}
