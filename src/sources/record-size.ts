// The size limit of one source record: a module of its own, so that what only names the limit (the
// GraphQL schema's description of tooLarge) does not load the ingest pipeline that records.ts drives.
/**
 * The largest record a sync reads, as input hardening: real OSV records are far smaller. The
 * embedded database stores a record on the main thread, in a transaction every read waits for,
 * for longer the larger the record (issue 27; bench/components.md). A larger record is skipped unread,
 * counted (tooLarge) and logged on every sync that meets it, so it is never silently missing.
 */
export const maxRecordBytes = 1024 * 1024;

export class RecordTooLarge extends Error {}

/** Throws RecordTooLarge for a record over maxRecordBytes: the one place that decides it. */
export function checkRecordSize(bytes: number): void {
  if (bytes > maxRecordBytes) throw new RecordTooLarge(`record is ${bytes} bytes, over the limit of ${maxRecordBytes}`);
}
