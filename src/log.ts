// Structured JSON logs on stdout, one object per line, filtered by level.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel): Logger {
  const emit =
    (at: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (order[at] < order[level]) return;
      const err = fields.err instanceof Error ? { err: { message: fields.err.message, stack: fields.err.stack } } : {};
      process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...fields, ...err })}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
