// PGlite runs PostgreSQL as one process with no checkpointer, and nothing else checkpoints while it
// is open: the WAL piles up in pg_wal, and once the WAL written since the last checkpoint reaches
// max_wal_size / (1 + checkpoint_completion_target) (33 segments, about 530 MB, by default) the
// backend asks for a checkpoint itself (PGlite sets IsUnderPostmaster) and never returns: 100% CPU
// in one Wasm function, no file I/O, for ever. That is where the 250,000-record osv-zip sync stopped
// (bench/components.md, sources), and any long-lived embedded server would get there in time. So the
// process checkpoints on its own once the WAL since the last checkpoint passes a small threshold,
// far below that point, which also keeps pg_wal small: a checkpoint removes the segments before it.
import type { PGlite } from '@electric-sql/pglite';

/**
 * WAL since the last checkpoint that makes the next check run one: ample headroom below the hang,
 * and about the most pg_wal holds (wal_recycle below).
 */
export const checkpointAfterBytes = 64 * 1024 * 1024;

/**
 * The point of the hang is raised too (max_wal_size 8 GB puts it near 4.3 GB), so that only gigabytes
 * of WAL between two checks, or inside one transaction, could reach it. With max_wal_size that
 * large, PostgreSQL would keep the segments before a checkpoint for reuse, as many as the WAL its
 * checkpoints were apart: wal_recycle=off removes them instead, so the threshold above, not
 * max_wal_size, sets how much WAL is kept.
 */
export const walStartParams = ['-c', 'max_wal_size=8GB', '-c', 'wal_recycle=off'];

/** Checks the WAL since the last checkpoint, and checkpoints past the threshold. */
export async function checkpointIfDue(pglite: PGlite): Promise<boolean> {
  const { rows } = await pglite.query<{ bytes: number }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()',
  );
  if ((rows[0]?.bytes ?? 0) < checkpointAfterBytes) return false;
  await pglite.exec('CHECKPOINT');
  return true;
}

/** Checks every `intervalMs` (PGlite queues a check behind any transaction in progress), one at a time. */
export function keepCheckpointing(pglite: PGlite, intervalMs = 5_000): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= checkpointIfDue(pglite)
      .catch(() => undefined) // closed meanwhile, or a transient failure: the next check tries again
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
