// A Logger that keeps what it was told, for tests that check what the service logs.
import type { Logger } from '../../src/log.js';

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

export function recordingLog(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (msg: string, fields?: Record<string, unknown>) => void entries.push({ level, msg, fields });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.now()) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms: number) => void (now += ms);
  return clock;
}
