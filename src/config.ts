/**
 * Every configuration value, spelled once: its environment variable, its command-line flag,
 * its default and its parser. The CLI builds its flags from this table and the README lists it,
 * so a setting cannot exist in one place and be missing from the other.
 */

export type Mode = 'sandbox' | 'production';

export interface Config {
  mode: Mode;
  host: string;
  port: number;
  databaseUrl: string;
  secretKey: string | undefined;
  publicBaseUrl: string | undefined;
  trustProxy: boolean;
  oldBaseUrls: string[];
  oldBaseUrlCutoff: number;
  bodyLimit: number;
  oauthWindowSeconds: number;
  logLevel: string;
  demoData: boolean;
  redisUrl: string | undefined;
  priceGuideMinutes: number;
}

interface Setting<K extends keyof Config> {
  key: K;
  env: string;
  flag: string;
  description: string;
  /** Default as a string, as a user would type it; `undefined` means unset. */
  default: string | undefined;
  parse: (raw: string) => Config[K];
}

function bool(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`expected true or false, got "${raw}"`);
}

function int(min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ConfigError(`expected an integer from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
}

function optional(raw: string): string | undefined {
  return raw === '' ? undefined : raw;
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function date(raw: string): number {
  const t = Date.parse(raw.length === 10 ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(t)) throw new ConfigError(`expected a date like 2026-05-01, got "${raw}"`);
  return t;
}

export class ConfigError extends Error {}

function setting<K extends keyof Config>(s: Setting<K>): Setting<K> {
  return s;
}

export const SETTINGS = [
  setting({
    key: 'mode',
    env: 'NODE_ENV',
    flag: '--production',
    description:
      'Run in production mode (`NODE_ENV=production` or `--production`): requires SECRET_KEY and PUBLIC_BASE_URL, hides every sandbox helper. Anything else is sandbox mode.',
    default: 'development',
    parse: (raw) => (raw === 'production' ? 'production' : 'sandbox'),
  }),
  setting({
    key: 'host',
    env: 'HOST',
    flag: '--host',
    description: 'Address to listen on.',
    default: '127.0.0.1',
    parse: (raw) => raw,
  }),
  setting({
    key: 'port',
    env: 'PORT',
    flag: '--port',
    description: 'Port to listen on.',
    default: '8080',
    parse: int(0, 65535),
  }),
  setting({
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: '--database-url',
    description:
      'Where the data lives: a SQLite file path (optionally `sqlite:` prefixed), `:memory:`, or a `postgres://` URL.',
    default: './data/cardbazaar.sqlite',
    parse: (raw) => raw,
  }),
  setting({
    key: 'secretKey',
    env: 'SECRET_KEY',
    flag: '--secret-key',
    description:
      'Server key from which every app and access token and secret is derived (see "Credentials" below). Required in production; in the sandbox a random key is created once in `secret.key` beside the SQLite file (or in the working directory for PostgreSQL).',
    default: undefined,
    parse: optional,
  }),
  setting({
    key: 'publicBaseUrl',
    env: 'PUBLIC_BASE_URL',
    flag: '--public-base-url',
    description:
      'The public base address clients use (e.g. `https://api.example.org`); the OAuth signature is checked against it. Required in production.',
    default: undefined,
    parse: (raw) => optional(raw.replace(/\/+$/, '')),
  }),
  setting({
    key: 'trustProxy',
    env: 'TRUST_PROXY',
    flag: '--trust-proxy',
    description:
      'Trust `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-For` from a reverse proxy (for the signed URL and the client IP).',
    default: 'false',
    parse: bool,
  }),
  setting({
    key: 'oldBaseUrls',
    env: 'OLD_BASE_URLS',
    flag: '--old-base-urls',
    description:
      'Comma-separated hosts (or base URLs) clients used before the base address moved; requests to them get `Deprecation` and `Sunset` headers until the cutoff, and 410 after it.',
    default: '',
    parse: (raw) =>
      list(raw).map((u) =>
        u
          .replace(/^[a-z]+:\/\//i, '')
          .replace(/\/.*$/, '')
          .toLowerCase(),
      ),
  }),
  setting({
    key: 'oldBaseUrlCutoff',
    env: 'OLD_BASE_URL_CUTOFF',
    flag: '--old-base-url-cutoff',
    description: 'Date from which the old base addresses answer 410 Gone.',
    default: '2026-05-01',
    parse: date,
  }),
  setting({
    key: 'bodyLimit',
    env: 'BODY_LIMIT',
    flag: '--body-limit',
    description: 'Largest request body in bytes; larger bodies get 413 before they are read whole.',
    default: String(1024 * 1024),
    parse: int(1024, 64 * 1024 * 1024),
  }),
  setting({
    key: 'oauthWindowSeconds',
    env: 'OAUTH_WINDOW_SECONDS',
    flag: '--oauth-window-seconds',
    description:
      'How far an `oauth_timestamp` may be from the server time, in seconds; nonces are remembered for twice as long.',
    default: '900',
    parse: int(1, 7 * 24 * 3600),
  }),
  setting({
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: '--log-level',
    description: 'pino log level (fatal, error, warn, info, debug, trace, silent).',
    default: 'info',
    parse: (raw) => raw,
  }),
  setting({
    key: 'demoData',
    env: 'DEMO_DATA',
    flag: '--demo-data',
    description:
      '`serve` loads the demo data into an empty database and prints demo credentials (sandbox only).',
    default: 'true',
    parse: bool,
  }),
  setting({
    key: 'redisUrl',
    env: 'REDIS_URL',
    flag: '--redis-url',
    description:
      'Redis for state shared by several instances (OAuth nonces, limits); unset keeps it in process memory.',
    default: undefined,
    parse: optional,
  }),
  setting({
    key: 'priceGuideMinutes',
    env: 'PRICE_GUIDE_MINUTES',
    flag: '--price-guide-minutes',
    description:
      'How often `serve` recomputes the whole price guide from offers and sales, in minutes; 0 turns the schedule off (`cardbazaar priceguide refresh` still works).',
    default: '60',
    parse: int(0, 7 * 24 * 60),
  }),
] as const;

/**
 * Builds the configuration from flags (already parsed by the CLI, keyed by Config key), then the
 * environment, then the defaults. Production refuses to start without explicit secrets.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  flags: Partial<Record<keyof Config, string>> = {},
): Config {
  const out: Partial<Record<keyof Config, unknown>> = {};
  for (const s of SETTINGS) {
    const raw = flags[s.key] ?? env[s.env] ?? s.default;
    if (raw === undefined) {
      out[s.key] = undefined;
      continue;
    }
    try {
      out[s.key] = (s.parse as (r: string) => unknown)(raw);
    } catch (err) {
      throw new ConfigError(`${s.env} (${s.flag}): ${(err as Error).message}`);
    }
  }
  const config = out as unknown as Config;
  if (config.mode === 'production') {
    if (!config.secretKey || config.secretKey.length < 32) {
      throw new ConfigError('production mode needs SECRET_KEY (at least 32 characters)');
    }
    if (!config.publicBaseUrl) {
      throw new ConfigError('production mode needs PUBLIC_BASE_URL (the address clients sign)');
    }
    config.demoData = false;
  }
  if (config.publicBaseUrl && !/^https?:\/\/[^/]+/i.test(config.publicBaseUrl)) {
    throw new ConfigError('PUBLIC_BASE_URL must start with http:// or https://');
  }
  return config;
}

/** A configuration for tests: sandbox, in-memory database, fixed key. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}, {}),
    databaseUrl: ':memory:',
    secretKey: 'test-secret-key-test-secret-key-0123456789',
    logLevel: 'silent',
    demoData: false,
    ...overrides,
  };
}
