// The only module that reads the environment (besides prisma.config.ts). Everything else gets a
// typed Config. parseConfig reports every problem at once, one line each, naming the variable.
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { sourceList, type SourceDefinition } from './sources/definition.js';

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

const isAddressOrRange = (entry: string) =>
  ipaddr.IPv4.isValidFourPartDecimal(entry) || ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) || ipaddr.IPv6.isValid(entry) || ipaddr.IPv6.isValidCIDR(entry);

/** TRUST_PROXY: true or false as any boolean, or the proxies' addresses and CIDR ranges, comma-separated. */
const trustProxy = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .default('false')
    .transform((value, ctx): boolean | string[] => {
      const word = value.trim().toLowerCase();
      if (['true', '1', 'yes'].includes(word)) return true;
      if (['false', '0', 'no'].includes(word)) return false;
      const entries = word.split(',').map((entry) => entry.trim());
      const wrong = entries.find((entry) => !isAddressOrRange(entry));
      if (wrong === undefined) return entries;
      ctx.addIssue({
        code: 'custom',
        message: `must be true, false, or the proxies' addresses and ranges (10.0.0.10,10.0.1.0/24): ${JSON.stringify(wrong)} is none`,
      });
      return z.NEVER;
    }),
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

const httpUrl = (fallback: string) => z.preprocess(unsetIfEmpty, z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).default(fallback));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v));

const environment = z.object({
  PORT: wholeNumber(3000, 'must be a port number (0 to 65535)', 65535),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
    message: 'must be a postgres:// or postgresql:// URL (unset it to use the embedded database)',
  }),
  DATA_DIR: z.string().min(1).default('./.data'),
  SEED_SAMPLE_DATA: bool(true),
  SEED_FROM_TEMPLATE: bool(true),
  REDIS_URL: optionalString.refine((v) => v === undefined || /^rediss?:\/\//.test(v), {
    message: 'must be a redis:// or rediss:// URL',
  }),
  REDIS_KEY_PREFIX: z.string().min(1).default('secwire:'),
  WEBHOOK_API_KEY: optionalString,
  ADMIN_API_KEY: optionalString,
  RATE_LIMIT_PER_MINUTE: wholeNumber(60, 'must be a whole number'),
  TRUST_PROXY: trustProxy,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(false),
  WEBHOOKS_PER_KEY: wholeNumber(50, 'must be a whole number'),
  MIGRATE_ON_START: bool(true),
  SUBSCRIPTIONS_PER_CLIENT: wholeNumber(10, 'must be a whole number'),
  SUBSCRIPTIONS_TOTAL: wholeNumber(1000, 'must be a whole number'),
  RESPONSE_CACHE_MB: wholeNumber(64, 'must be a whole number'),
  SUBSCRIPTION_IDLE_SECONDS: wholeNumber(1800, 'must be a whole number of seconds', 86_400),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  TAXII_SETTLE_SECONDS: wholeNumber(10, 'must be a whole number'),
  SOURCES: optionalString,
  SOURCES_FILE: optionalString,
  SOURCES_ALLOW_PRIVATE: bool(false),
  SOURCES_RETRY_MS: wholeNumber(1000, 'must be a whole number of milliseconds'),
  REGISTRY_LOOKUP: bool(true),
  PYPI_URL: httpUrl('https://pypi.org'),
  NPM_REGISTRY_URL: httpUrl('https://registry.npmjs.org'),
});

// The typed Config (its type is this transform's output; sources are parsed on their own).
const schema = environment.transform((e) => ({
  port: e.PORT,
  host: e.HOST,
  databaseUrl: e.DATABASE_URL,
  dataDir: e.DATA_DIR,
  seedSampleData: e.SEED_SAMPLE_DATA,
  /** A new embedded data directory takes the sample data from the cluster `npm install` seeded (when built from this code and data). */
  seedFromTemplate: e.SEED_FROM_TEMPLATE,
  redisUrl: e.REDIS_URL,
  /** Rate-limit keys and pub/sub channels start with it: deployments sharing a Redis keep apart. */
  redisKeyPrefix: e.REDIS_KEY_PREFIX,
  webhookApiKey: e.WEBHOOK_API_KEY,
  adminApiKey: e.ADMIN_API_KEY,
  rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
  trustProxy: e.TRUST_PROXY,
  webhookAllowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
  /** Webhooks one bearer key may register. */
  webhooksPerKey: e.WEBHOOKS_PER_KEY,
  migrateOnStart: e.MIGRATE_ON_START,
  /** Open GraphQL subscriptions one client (rate-limit identity) may hold, and all clients together. */
  subscriptionsPerClient: e.SUBSCRIPTIONS_PER_CLIENT,
  subscriptionsTotal: e.SUBSCRIPTIONS_TOTAL,
  /** Bytes the response cache may hold (bodies and their compressed copies); 0 turns it off. */
  responseCacheBytes: e.RESPONSE_CACHE_MB * 1024 * 1024,
  /** A subscription that has sent nothing for this long is ended (the client reconnects). */
  subscriptionIdleMs: e.SUBSCRIPTION_IDLE_SECONDS * 1000,
  logLevel: e.LOG_LEVEL,
  /**
   * TAXII lists an issue only once it is this old: an ingest transaction that started earlier but
   * commits later would otherwise land behind a client's paging cursor and be skipped.
   */
  taxiiSettleSeconds: e.TAXII_SETTLE_SECONDS,
  /** Test/dev escape hatch: fetch source URLs that resolve to private or loopback addresses. */
  sourcesAllowPrivate: e.SOURCES_ALLOW_PRIVATE,
  /** The wait before a failed source fetch is tried again; each later try waits 4 times longer (with jitter). */
  sourcesRetryMs: e.SOURCES_RETRY_MS,
  /**
   * Look up the registry summary of PyPI and npm packages no catalogue list names, after ingests
   * and syncs (src/registry), from these registries.
   */
  registryLookup: e.REGISTRY_LOOKUP ? { pypiUrl: e.PYPI_URL, npmUrl: e.NPM_REGISTRY_URL } : undefined,
}));

export type Config = z.output<typeof schema> & {
  /** Upstream sources the server syncs on their intervals and `cli sync` syncs once. */
  sources: SourceDefinition[];
  /** Where the sources came from: the shipped default list, or the operator's SOURCES / SOURCES_FILE. */
  sourcesFrom: 'default' | 'SOURCES' | 'SOURCES_FILE';
};

/**
 * The shipped list of public upstreams (data/sources/README.md says why each), used when neither
 * SOURCES nor SOURCES_FILE is set. `SOURCES=[]` turns sources off.
 */
export const defaultSourcesUrl = new URL('../data/sources/default-sources.json', import.meta.url);

/** The sources as JSON text, from SOURCES, the file SOURCES_FILE names or the shipped default list; problems name the variable. */
function parseSources(env: { SOURCES?: string; SOURCES_FILE?: string }): { sources: SourceDefinition[]; problems: string[] } {
  if (env.SOURCES && env.SOURCES_FILE) return { sources: [], problems: ['SOURCES_FILE: give SOURCES or SOURCES_FILE, not both'] };
  const name = env.SOURCES_FILE ? 'SOURCES_FILE' : 'SOURCES';
  let text = env.SOURCES;
  const file = env.SOURCES_FILE ?? (text === undefined ? defaultSourcesUrl : undefined);
  if (file) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      return { sources: [], problems: [`SOURCES_FILE: cannot read ${String(file)} (${(err as NodeJS.ErrnoException).code ?? 'error'})`] };
    }
  }
  if (text === undefined) return { sources: [], problems: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { sources: [], problems: [`${name}: must be a JSON array of sources ({name, kind, location, intervalMinutes?})`] };
  }
  const result = sourceList.safeParse(value);
  if (result.success) return { sources: result.data, problems: [] };
  return { sources: [], problems: result.error.issues.map((i) => `${name}: ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`) };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** Parses an environment; throws ConfigError listing one line per bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = schema.safeParse(env);
  const sources = parseSources({
    SOURCES: unsetIfEmpty(env.SOURCES) as string | undefined,
    SOURCES_FILE: unsetIfEmpty(env.SOURCES_FILE) as string | undefined,
  });
  if (!result.success || sources.problems.length) {
    throw new ConfigError([
      ...(result.error?.issues ?? []).map((i) => {
        const name = String(i.path[0]);
        // URLs and keys may hold credentials: their values stay out of the message (and the logs).
        return /_URL$|_KEY$/.test(name) ? `${name}: ${i.message}` : `${name}: ${i.message} (got ${JSON.stringify(env[name])})`;
      }),
      ...sources.problems,
    ]);
  }
  const sourcesFrom = unsetIfEmpty(env.SOURCES_FILE) ? 'SOURCES_FILE' : unsetIfEmpty(env.SOURCES) ? 'SOURCES' : 'default';
  return { ...result.data, sources: sources.sources, sourcesFrom };
}

/**
 * Config for tests and tools: defaults, overridden field by field. The rate limit is off unless a
 * test asks for it: in-process requests all count as one client, and a suite sends more than 60.
 * Registry lookups and the default sources are off unless a test points them at its own server:
 * no test leaves the machine.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...parseConfig({
      SEED_SAMPLE_DATA: 'false',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      TAXII_SETTLE_SECONDS: '0',
      REGISTRY_LOOKUP: 'false',
      SOURCES: '[]',
    }),
    ...overrides,
  };
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
