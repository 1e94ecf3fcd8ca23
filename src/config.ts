import { availableParallelism } from 'node:os';
import { REQUEST_GROUP_NAMES } from './limits/groups.js';
import { parseDuration } from './clock.js';

/**
 * The hosts the live API has answered on, newest first (reference §6): `apiv2.cardmarket.com` since
 * the move of 30 January 2026, `api.cardmarket.com` before it, the abandoned sandbox, and the 1.x
 * hosts. Clients with the host built in sign for one of them.
 */
export const LIVE_HOST_NAMES = [
  'apiv2.cardmarket.com',
  'api.cardmarket.com',
  'sandbox.cardmarket.com',
  'www.mkmapi.eu',
  'sandbox.mkmapi.eu',
] as const;

/** The host the live API left for apiv2 (LIVE_HOST_MOVED). */
export const MOVED_LIVE_HOST = 'api.cardmarket.com';

/**
 * Every configuration value, spelled once: its environment variable, its command-line flag,
 * its default and its parser. The CLI builds its flags from this table and the settings table of
 * docs/running-a-marketplace.md lists it,
 * so a setting cannot exist in one place and be missing from the other.
 */

export type Mode = 'sandbox' | 'production';

export interface Config {
  mode: Mode;
  host: string;
  port: number;
  /** Processes answering on the one port (`serve --workers`); 1: this process alone. */
  workers: number;
  databaseUrl: string;
  secretKey: string | undefined;
  publicBaseUrl: string | undefined;
  trustProxy: boolean;
  oldBaseUrls: string[];
  oldBaseUrlCutoff: number;
  bodyLimit: number;
  /** Slow-client bounds (src/http/connections.ts): headers, whole request, idle keep-alive, no progress. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  socketIdleTimeoutMs: number;
  maxConnectionsPerAddress: number;
  oauthWindowSeconds: number;
  logLevel: string;
  demoData: boolean;
  redisUrl: string | undefined;
  limitsEnabled: boolean;
  limitsPerMinute: number;
  limitsDailyPrivate: number;
  limitsDailyProfessional: number;
  limitsDailyPowerseller: number;
  limitsDailyMarketplace: number;
  limitsConcurrentGroups: string[];
  limitsLockTtlSeconds: number;
  limitsRedisPrefix: string;
  messagesEnabled: boolean;
  /** How long cart reservations hold their copies (trading). */
  reservationExpiryMs: number;
  /** How long after an order's last state change `cancel` becomes possible (trading). */
  cancelWaitingPeriodMs: number;
  /** How long after `sent` the buyer may report an order lost (trading). */
  lostWaitPeriodMs: number;
  priceGuideMinutes: number;
  /** Lifetime of a third-party app's access token, in days (the authorization flow). */
  thirdPartyTokenDays: number;
  /** How long a website sign-in lasts. */
  sessionLifetimeMs: number;
  /** Sign-in failures allowed per username and address pair, and per address, in `signInWindowMs`. */
  signInAttemptsPerPair: number;
  signInAttemptsPerAddress: number;
  /** Failures of one username (all addresses) after which each attempt on it waits, up to `signInMaxDelayMs`. */
  signInSlowdownAfter: number;
  signInMaxDelayMs: number;
  signInWindowMs: number;
  /** Registrations allowed per client address and on the whole site in `registrationWindowMs`. */
  registrationsPerAddress: number;
  registrationsGlobal: number;
  registrationWindowMs: number;
  /** `includeSubDomains` in the HSTS header (sent when the public base URL is https). */
  hstsIncludeSubdomains: boolean;
  /** Where password reset emails go out (nodemailer transport URL); unset: no email. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Operator card pictures (`IMAGE_DIR`), served under `/img/`. */
  imageDir: string | undefined;
  /** Outside hosts whose `https://` card pictures the pages show (`IMAGE_HOSTS`). */
  imageHosts: string[];
  /** Where `cardbazaar snapshot` keeps snapshots; unset: `snapshots/` beside the SQLite file. */
  snapshotDir: string | undefined;
  /** The sandbox control API's bearer token (`/_cardbazaar/`); unset: derived from the server key. */
  controlToken: string | undefined;
  /** Rows of the request log kept per user (0: no request log). */
  requestLogRows: number;
  /** Webhooks (docs/api.md, "Events and webhooks"): endpoints on private addresses in production; the answer's time limit. */
  webhookAllowPrivate: boolean;
  webhookTimeoutMs: number;
  /**
   * Hosts whose `https://host` signatures verify beside the server's own URL (sandbox only; empty in
   * production). Lower-case host names, no scheme or port.
   */
  liveHosts: string[];
  /** Sandbox: `api.cardmarket.com` answers 410 as the live one has since the move to apiv2. */
  liveHostMoved: boolean;
  /** Sandbox: also listen on https on this port, with the certificate in `tlsDir`; unset: no https. */
  tlsPort: number | undefined;
  /** Where `tls init` writes the authority and certificate and the https listener reads them; unset: `tls` in the data folder. */
  tlsDir: string | undefined;
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

/** A number of worker processes, or `auto`: one per core the process may use. */
function workerCount(raw: string): number {
  if (raw.trim().toLowerCase() === 'auto') return Math.max(1, availableParallelism());
  return int(1, 256)(raw);
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

/** Host names, lowercased; an address with a scheme, port or path is refused so a typo fails at start. */
function hostList(raw: string): string[] {
  return list(raw).map((h) => {
    const host = h.toLowerCase();
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(host)) {
      throw new ConfigError(`expected host names like cards.example.org, got "${h}"`);
    }
    return host;
  });
}

function date(raw: string): number {
  const t = Date.parse(raw.length === 10 ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(t)) throw new ConfigError(`expected a date like 2026-05-01, got "${raw}"`);
  return t;
}

export class ConfigError extends Error {}

/** Names of the request groups (src/limits/groups.ts), checked here so a typo fails at start. */
function groupList(raw: string): string[] {
  const names = list(raw);
  for (const n of names) {
    if (!(REQUEST_GROUP_NAMES as readonly string[]).includes(n)) {
      throw new ConfigError(`unknown request group "${n}" (known: ${REQUEST_GROUP_NAMES.join(', ')})`);
    }
  }
  return names;
}

/** Request counts: up to a trillion, so a benchmark can raise a limit out of its way. */
const count = int(1, 1e12);

function duration(min: number) {
  return (raw: string): number => {
    let ms: number;
    try {
      ms = parseDuration(raw);
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
    if (ms < min) throw new ConfigError(`expected at least ${min / 1000} s, got "${raw}"`);
    return ms;
  };
}

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
    key: 'workers',
    env: 'WORKERS',
    flag: '--workers',
    description:
      '`serve`: how many processes answer on the one port (node:cluster), each on its own core; `auto`: one per core. They share limits, nonces, revocations and deliveries through the database or Redis (docs/running-a-marketplace.md, "Several workers").',
    default: '1',
    parse: workerCount,
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
      'Server key from which every app and access token and secret is derived (docs/running-a-marketplace.md, "Credentials"). Required in production; in the sandbox a random key is created once in `secret.key` beside the SQLite file (or in ./data/secret.key for PostgreSQL); with an in-memory database, a key that lives as long as the process.',
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
    key: 'headersTimeoutMs',
    env: 'HEADERS_TIMEOUT',
    flag: '--headers-timeout',
    description:
      'How long a client has to send the request line and headers (e.g. 10s), counted from the connection or the previous answer; then 408 and the connection closes.',
    default: '10s',
    parse: duration(1),
  }),
  setting({
    key: 'requestTimeoutMs',
    env: 'REQUEST_TIMEOUT',
    flag: '--request-timeout',
    description:
      'How long a client has to send a whole request, body included (e.g. 60s; at least HEADERS_TIMEOUT); then 408 and the connection closes. The answer may take longer.',
    default: '60s',
    parse: duration(1),
  }),
  setting({
    key: 'keepAliveTimeoutMs',
    env: 'KEEP_ALIVE_TIMEOUT',
    flag: '--keep-alive-timeout',
    description:
      "How long a kept-alive connection may stay idle between requests before it is closed: longer than clients keep idle connections for reuse (a request sent on a connection the server is closing gets no answer); behind a load balancer, longer than the balancer's own idle timeout.",
    default: '65s',
    parse: duration(1),
  }),
  setting({
    key: 'socketIdleTimeoutMs',
    env: 'SOCKET_IDLE_TIMEOUT',
    flag: '--socket-idle-timeout',
    description:
      'A connection on which no byte moves either way for this long is closed (e.g. a client that stopped reading its answer).',
    default: '120s',
    parse: duration(1),
  }),
  setting({
    key: 'maxConnectionsPerAddress',
    env: 'MAX_CONNECTIONS_PER_ADDRESS',
    flag: '--max-connections-per-address',
    description:
      'Open connections one client address may hold; the next is answered 429 and closed. 0: no cap. Not applied with TRUST_PROXY (every client then connects from the proxy).',
    default: '64',
    parse: int(0, 1_000_000),
  }),
  setting({
    key: 'oauthWindowSeconds',
    env: 'OAUTH_WINDOW_SECONDS',
    flag: '--oauth-window-seconds',
    description:
      'How far an `oauth_timestamp` may be from the server time, in seconds; a nonce is remembered until its timestamp has left the window (in Redis, twice as long).',
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
      'Redis for state shared by several instances (OAuth nonces, limits); unset keeps nonces in the database and limit counts in process memory.',
    default: undefined,
    parse: optional,
  }),
  setting({
    key: 'limitsEnabled',
    env: 'LIMITS_ENABLED',
    flag: '--limits-enabled',
    description:
      'Enforce the request limits (per-minute rate, daily quotas, concurrency). `false` turns them all off.',
    default: 'true',
    parse: bool,
  }),
  setting({
    key: 'limitsPerMinute',
    env: 'LIMITS_PER_MINUTE',
    flag: '--limits-per-minute',
    description: 'Requests per minute per app token and user; the next answers 503 "Slow Down".',
    default: '600',
    parse: count,
  }),
  setting({
    key: 'limitsDailyPrivate',
    env: 'LIMITS_DAILY_PRIVATE',
    flag: '--limits-daily-private',
    description: 'Daily request quota of a dedicated app whose owner has a private account.',
    default: '5000',
    parse: count,
  }),
  setting({
    key: 'limitsDailyProfessional',
    env: 'LIMITS_DAILY_PROFESSIONAL',
    flag: '--limits-daily-professional',
    description: 'Daily request quota of a dedicated app whose owner has a professional account.',
    default: '100000',
    parse: count,
  }),
  setting({
    key: 'limitsDailyPowerseller',
    env: 'LIMITS_DAILY_POWERSELLER',
    flag: '--limits-daily-powerseller',
    description: 'Daily request quota of a dedicated app whose owner has a powerseller account.',
    default: '1000000',
    parse: count,
  }),
  setting({
    key: 'limitsDailyMarketplace',
    env: 'LIMITS_DAILY_MARKETPLACE',
    flag: '--limits-daily-marketplace',
    description:
      'Daily cap on marketplace-group requests (games, products, articles, users, …) of an app with a quota.',
    default: '30000',
    parse: count,
  }),
  setting({
    key: 'limitsConcurrentGroups',
    env: 'LIMITS_CONCURRENT_GROUPS',
    flag: '--limits-concurrent-groups',
    description:
      'Comma-separated request groups limited to one request at a time per client IP (empty: none).',
    default: 'stockFile,exports,userArticles,productSearch',
    parse: groupList,
  }),
  setting({
    key: 'limitsLockTtlSeconds',
    env: 'LIMITS_LOCK_TTL_SECONDS',
    flag: '--limits-lock-ttl-seconds',
    description: 'Longest a concurrency place stays taken when its release was missed (a crashed instance).',
    default: '120',
    parse: int(1, 86_400),
  }),
  setting({
    key: 'limitsRedisPrefix',
    env: 'LIMITS_REDIS_PREFIX',
    flag: '--limits-redis-prefix',
    description: 'Prefix of the limit keys in Redis (deployments sharing one Redis need different ones).',
    default: 'cardbazaar:limits:',
    parse: (raw) => raw,
  }),
  setting({
    key: 'messagesEnabled',
    env: 'MESSAGES_ENABLED',
    flag: '--messages-enabled',
    description:
      '`false` shuts the message requests down: every `/account/messages…` request answers 404 saying so, while the rest of the API works.',
    default: 'true',
    parse: bool,
  }),
  setting({
    key: 'reservationExpiryMs',
    env: 'RESERVATION_EXPIRY',
    flag: '--reservation-expiry',
    description:
      'How long articles added to a shopping cart stay reserved (e.g. 1h, 30m, 2d); each change to the reservation starts the time anew. Expired reservations release their copies.',
    default: '1h',
    parse: duration(1000),
  }),
  setting({
    key: 'cancelWaitingPeriodMs',
    env: 'CANCEL_WAIT_PERIOD',
    flag: '--cancel-wait-period',
    description:
      'How long after its last state change an order may be cancelled with `cancel` (the seller of an unpaid order, the buyer of a paid one), e.g. 7d.',
    default: '7d',
    parse: duration(0),
  }),
  setting({
    key: 'lostWaitPeriodMs',
    env: 'LOST_WAIT_PERIOD',
    flag: '--lost-wait-period',
    description:
      'How long after an order was sent its buyer may request its cancellation as lost (e.g. 14d); the seller accepting makes it `lost` and refunds the buyer.',
    default: '14d',
    parse: duration(0),
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
  setting({
    key: 'thirdPartyTokenDays',
    env: 'THIRD_PARTY_TOKEN_DAYS',
    flag: '--third-party-token-days',
    description:
      'How many days an access token that a user gave a third-party app (the authorization flow, `POST /access`) stays valid, on the marketplace clock.',
    default: '180',
    parse: int(1, 36_500),
  }),
  setting({
    key: 'sessionLifetimeMs',
    env: 'SESSION_LIFETIME',
    flag: '--session-lifetime',
    description: 'How long a sign-in on the website lasts (e.g. 14d, 12h), on the marketplace clock.',
    default: '14d',
    parse: duration(60_000),
  }),
  setting({
    key: 'signInAttemptsPerPair',
    env: 'SIGNIN_ATTEMPTS_PER_PAIR',
    flag: '--signin-attempts-per-pair',
    description:
      "Failed sign-ins allowed for one username from one client address within SIGNIN_WINDOW; that pair's next attempts answer 429 until the window ends. The same username from another address is not refused.",
    default: '5',
    parse: int(1, 1_000_000),
  }),
  setting({
    key: 'signInAttemptsPerAddress',
    env: 'SIGNIN_ATTEMPTS_PER_ADDRESS',
    flag: '--signin-attempts-per-address',
    description:
      'Failed sign-ins allowed from one client address within SIGNIN_WINDOW, whatever the usernames; its next attempts answer 429 until the window ends.',
    default: '30',
    parse: int(1, 1_000_000),
  }),
  setting({
    key: 'signInSlowdownAfter',
    env: 'SIGNIN_SLOWDOWN_AFTER',
    flag: '--signin-slowdown-after',
    description:
      'Failed sign-ins for one username from all addresses within SIGNIN_WINDOW after which every attempt on it waits before its password is checked: 1 s, doubling with each further failure, up to SIGNIN_MAX_DELAY. Slowed, never refused: the right password still signs in.',
    default: '10',
    parse: int(1, 1_000_000),
  }),
  setting({
    key: 'signInMaxDelayMs',
    env: 'SIGNIN_MAX_DELAY',
    flag: '--signin-max-delay',
    description:
      'The longest wait SIGNIN_SLOWDOWN_AFTER imposes on one sign-in attempt (e.g. 10s; 0 turns the slowdown off).',
    default: '10s',
    parse: duration(0),
  }),
  setting({
    key: 'signInWindowMs',
    env: 'SIGNIN_WINDOW',
    flag: '--signin-window',
    description:
      'The window the sign-in limits count failures in (e.g. 15m), starting with the first failure.',
    default: '15m',
    parse: duration(1000),
  }),
  setting({
    key: 'registrationsPerAddress',
    env: 'REGISTRATIONS_PER_ADDRESS',
    flag: '--registrations-per-address',
    description:
      'Accounts one client address may try to create on the website within REGISTRATION_WINDOW; the next attempts answer 429 with `Retry-After`. Counted before the password is hashed, so the form cannot be used to load the server. Off with LIMITS_ENABLED=false.',
    default: '5',
    parse: int(1, 1_000_000_000),
  }),
  setting({
    key: 'registrationsGlobal',
    env: 'REGISTRATIONS_GLOBAL',
    flag: '--registrations-global',
    description:
      'Accounts all addresses together may try to create on the website within REGISTRATION_WINDOW (a bound on a registration flood from many addresses); the next attempts answer 429.',
    default: '200',
    parse: int(1, 1_000_000_000),
  }),
  setting({
    key: 'registrationWindowMs',
    env: 'REGISTRATION_WINDOW',
    flag: '--registration-window',
    description:
      'The window the registration limits count in (e.g. 1h), starting with its first registration.',
    default: '1h',
    parse: duration(1000),
  }),
  setting({
    key: 'hstsIncludeSubdomains',
    env: 'HSTS_INCLUDE_SUBDOMAINS',
    flag: '--hsts-include-subdomains',
    description:
      'Add `includeSubDomains` to the `Strict-Transport-Security` header that every answer carries when PUBLIC_BASE_URL is https (browsers then reach every subdomain of the host over https only, for a year).',
    default: 'false',
    parse: bool,
  }),
  setting({
    key: 'smtpUrl',
    env: 'SMTP_URL',
    flag: '--smtp-url',
    description:
      'Mail server for password reset links, as a nodemailer URL (`smtp://user:pass@host:587`, `smtps://…`). Unset: no email is sent (`cardbazaar user reset-link NAME` prints a link).',
    default: undefined,
    parse: optional,
  }),
  setting({
    key: 'mailFrom',
    env: 'MAIL_FROM',
    flag: '--mail-from',
    description: 'The sender of the emails the website sends.',
    default: 'cardbazaar <no-reply@cardbazaar.invalid>',
    parse: (raw) => raw,
  }),
  setting({
    key: 'imageDir',
    env: 'IMAGE_DIR',
    flag: '--image-dir',
    description:
      "A folder of the operator's card pictures: the file at the path of a product's `image` after `./img/` (`items/1/LEA/1.jpg`) is served for it at `/img/…`; a product without one gets a drawn card face. Unset: every product gets its drawn face.",
    default: undefined,
    parse: optional,
  }),
  setting({
    key: 'imageHosts',
    env: 'IMAGE_HOSTS',
    flag: '--image-hosts',
    description:
      "Outside hosts the pages may show card pictures from, comma-separated (`cards.example.org`): a product whose `image` is an `https://` address on one of them (an imported catalog's) is shown from there, and the pages' Content-Security-Policy admits that host; any other outside address gets the drawn face. Unset: pictures come from this server only.",
    default: '',
    parse: hostList,
  }),
  setting({
    key: 'snapshotDir',
    env: 'SNAPSHOT_DIR',
    flag: '--snapshot-dir',
    description:
      'Where `cardbazaar snapshot save` keeps snapshots (sandbox, SQLite). Unset: a `snapshots` folder beside the database file.',
    default: undefined,
    parse: optional,
  }),
  setting({
    key: 'controlToken',
    env: 'CONTROL_TOKEN',
    flag: '--control-token',
    description:
      'The bearer token of the sandbox control API (`/_cardbazaar/`: clock, faults, snapshots, fixtures, event triggers, reset). Unset: derived from the server key, printed at start and in `serve --print-credentials json` as `controlToken`.',
    default: undefined,
    parse: (raw) => {
      const token = optional(raw);
      if (token !== undefined && !/^[A-Za-z0-9._~+/=-]{16,200}$/.test(token)) {
        throw new Error('16 to 200 letters, digits and . _ ~ + / = -');
      }
      return token;
    },
  }),
  setting({
    key: 'requestLogRows',
    env: 'REQUEST_LOG_ROWS',
    flag: '--request-log-rows',
    description:
      "How many of each user's API requests the request log keeps (the newest; older ones are deleted as new ones are written). 0 turns the request log off.",
    default: '1000',
    parse: int(0, 1_000_000),
  }),
  setting({
    key: 'webhookAllowPrivate',
    env: 'WEBHOOK_ALLOW_PRIVATE',
    flag: '--webhook-allow-private',
    description:
      "Accept webhook endpoints that are, or resolve to, loopback, private, link-local or other non-public addresses. Refused by default (checked when registered and again before each delivery connects) in production and in a sandbox that others can reach; a sandbox listening on loopback alone accepts them. True lets whoever registers an endpoint make this server send POSTs to the internal network (the answers' bodies are still never shown).",
    default: 'false',
    parse: bool,
  }),
  setting({
    key: 'webhookTimeoutMs',
    env: 'WEBHOOK_TIMEOUT',
    flag: '--webhook-timeout',
    description:
      'How long a webhook delivery waits for the receiver to answer (e.g. 10s) before the attempt counts as failed and is retried.',
    default: '10s',
    parse: duration(100),
  }),
  setting({
    key: 'liveHosts',
    env: 'LIVE_HOSTS',
    flag: '--live-hosts',
    description:
      "Sandbox: comma-separated hosts a client may have signed its requests for instead of the server's own address (`https://HOST/ws/…`, no port), as clients with the live host built in do; empty turns it off. Never in production.",
    default: LIVE_HOST_NAMES.join(','),
    parse: (raw) =>
      list(raw).map((u) => {
        const host = u
          .replace(/^[a-z]+:\/\//i, '')
          .replace(/\/.*$/, '')
          .toLowerCase();
        if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)) {
          throw new ConfigError(`"${u}" is not a host name (e.g. apiv2.cardmarket.com)`);
        }
        return host;
      }),
  }),
  setting({
    key: 'liveHostMoved',
    env: 'LIVE_HOST_MOVED',
    flag: '--live-host-moved',
    description:
      'Sandbox: requests for `api.cardmarket.com` answer 410 "Please switch to https://apiv2.cardmarket.com", as the live host has since the move to apiv2, so a client can test its migration.',
    default: 'false',
    parse: bool,
  }),
  setting({
    key: 'tlsPort',
    env: 'TLS_PORT',
    flag: '--tls-port',
    description:
      'Sandbox: also listen on https on this port (0: any free port), with the certificate `cardbazaar tls init` made in TLS_DIR. Unset: no https.',
    default: undefined,
    parse: (raw) => (raw === '' ? undefined : int(0, 65535)(raw)),
  }),
  setting({
    key: 'tlsDir',
    env: 'TLS_DIR',
    flag: '--tls-dir',
    description:
      'Where `cardbazaar tls init` writes the local certificate authority and the server certificate, and where the https listener reads them. Unset: a `tls` folder beside the SQLite file (`./data/tls` otherwise).',
    default: undefined,
    parse: optional,
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
    // Sandbox helpers for clients with the live host built in: an explicit request for one is a
    // mistake worth stopping for; the default list is simply not applied.
    const explicit = (key: keyof Config) =>
      flags[key] !== undefined || env[SETTINGS.find((s) => s.key === key)!.env] !== undefined;
    if (explicit('liveHosts') && config.liveHosts.length > 0) {
      throw new ConfigError(
        'LIVE_HOSTS is for the sandbox only: production checks signatures against PUBLIC_BASE_URL alone',
      );
    }
    if (config.liveHostMoved) throw new ConfigError('LIVE_HOST_MOVED is for the sandbox only');
    if (config.tlsPort !== undefined) {
      throw new ConfigError(
        'TLS_PORT is for the sandbox only (its certificate comes from a local authority): in production, terminate TLS in a reverse proxy',
      );
    }
    config.liveHosts = [];
  }
  if (config.workers > 1 && /^(sqlite:)?:memory:$/i.test(config.databaseUrl)) {
    throw new ConfigError(
      'WORKERS above 1 needs a database the processes can share: a SQLite file or PostgreSQL, not :memory:',
    );
  }
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT cannot be longer than REQUEST_TIMEOUT (the headers are part of the request)',
    );
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
    // Suites fire parallel requests from one address (inject's 127.0.0.1) and more than a minute's
    // worth from one user on a clock that stands still; the limit suites turn limits on themselves.
    limitsEnabled: false,
    ...overrides,
  };
}
