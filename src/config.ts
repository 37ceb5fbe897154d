// The only module that reads the environment (besides prisma.config.ts). Everything else gets a
// typed Config. parseConfig reports every problem at once, one line each, naming the variable.
import { z } from 'zod';

// An empty value counts as unset: compose files and shell scripts write `VAR=` for "not given".
const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const bool = (fallback: boolean) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  );

/** Decimal digits only: Number() would also take "0x10", "1e3" or " ". */
const wholeNumber = (fallback: number, message: string, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .default(String(fallback))
      .transform((v) => v.trim())
      .pipe(z.string().regex(/^\d+$/, message).transform(Number))
      .refine((n) => n <= max, message),
  );

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v));

const schema = z.object({
  PORT: wholeNumber(3000, 'must be a port number (0 to 65535)', 65535),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
    message: 'must be a postgres:// or postgresql:// URL (unset it to use the embedded database)',
  }),
  DATA_DIR: z.string().min(1).default('./.data'),
  SEED_SAMPLE_DATA: bool(true),
  REDIS_URL: optionalString.refine((v) => v === undefined || /^rediss?:\/\//.test(v), {
    message: 'must be a redis:// or rediss:// URL',
  }),
  WEBHOOK_API_KEY: optionalString,
  ADMIN_API_KEY: optionalString,
  RATE_LIMIT_PER_MINUTE: wholeNumber(60, 'must be a whole number'),
  TRUST_PROXY: bool(false),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(false),
  MIGRATE_ON_START: bool(true),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  seedSampleData: boolean;
  redisUrl?: string;
  webhookApiKey?: string;
  adminApiKey?: string;
  rateLimitPerMinute: number;
  trustProxy: boolean;
  webhookAllowPrivateTargets: boolean;
  migrateOnStart: boolean;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** Parses an environment; throws ConfigError listing one line per bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((i) => {
        const name = String(i.path[0]);
        // URLs and keys may hold credentials: their values stay out of the message (and the logs).
        return /_URL$|_KEY$/.test(name) ? `${name}: ${i.message}` : `${name}: ${i.message} (got ${JSON.stringify(env[name])})`;
      }),
    );
  }
  const e = result.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    seedSampleData: e.SEED_SAMPLE_DATA,
    redisUrl: e.REDIS_URL,
    webhookApiKey: e.WEBHOOK_API_KEY,
    adminApiKey: e.ADMIN_API_KEY,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    webhookAllowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    migrateOnStart: e.MIGRATE_ON_START,
    logLevel: e.LOG_LEVEL,
  };
}

/**
 * Config for tests and tools: defaults, overridden field by field. The rate limit is off unless a
 * test asks for it: in-process requests all count as one client, and a suite sends more than 60.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...parseConfig({ SEED_SAMPLE_DATA: 'false', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' }), ...overrides };
}

/** The process environment, read here and nowhere else. */
export function readEnvironment(): Record<string, string | undefined> {
  return process.env;
}

/** The process's config; on a bad environment, one line per problem on stderr and exit code 1. */
export function loadConfigOrExit(): Config {
  try {
    return parseConfig(readEnvironment());
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const problem of err.problems) console.error(`secwire: invalid configuration: ${problem}`);
    process.exit(1);
  }
}
