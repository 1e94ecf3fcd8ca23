import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { loadOrCreateKey, sandboxKeyFile } from './auth/credentials.js';
import { DatabaseNonceStore, type NonceStore, RedisNonceStore } from './auth/nonces.js';
import { CredentialsVersion } from './auth/revocations.js';
import { type Clock, OffsetClock, systemClock } from './clock.js';
import type { Config } from './config.js';
import type { DomainContext } from './domain/context.js';
import { EventDispatcher } from './domain/events.js';
import { registerEventHandlers } from './domain/handlers.js';
import { registerUserEventHandlers } from './domain/user-events.js';
import { WebhookDeliverer, type WebhookSettings, webhookSettingsOf } from './domain/webhooks.js';
import type { HostLookup } from './domain/webhook-targets.js';
import { RequestsInFlight } from './http/in-flight.js';
import { exportUrl } from './domain/exports.js';
import { createLimitStore } from './limits/create-store.js';
import type { LimitStore } from './limits/store.js';
import { createMailer, type Mailer } from './mail.js';
import { RequestLogRecorder } from './domain/request-log.js';
import { type Database, openDatabase } from './store/db.js';
import { migrateToLatest } from './store/migrate.js';
import { openRedis } from './store/redis.js';
import { getSetting } from './store/settings.js';
import { CLOCK_OFFSET } from './store/faults.js';

/**
 * Everything a running cardbazaar holds, built once at start and handed to the HTTP layer, the CLI
 * and the tests. Tests replace the clocks and the database through `overrides`.
 */
export interface Services extends DomainContext {
  config: Config;
  database: Database;
  /** Marketplace time: movable in the sandbox (`cardbazaar clock advance`). */
  clock: Clock;
  /** Real time, for what clients measure with their own clocks (OAuth timestamps, the base-URL cutoff). */
  wallClock: Clock;
  serverKey: string;
  nonces: NonceStore;
  /** Tells cached credentials that something was revoked, by any process (src/auth/revocations.ts). */
  credentialsVersion: CredentialsVersion;
  /** Request-limit counters and concurrency places (src/limits/): Redis when REDIS_URL is set. */
  limits: LimitStore;
  redis: Redis | undefined;
  events: EventDispatcher;
  /** Sends the webhook deliveries (src/domain/webhooks.ts); started by `serve`. */
  webhooks: WebhookDeliverer;
  /** Where webhook endpoints may point, and the delivery time limit (from the configuration). */
  webhookSettings: WebhookSettings;
  /** The requests being answered now, counted by the app's hook; deliveries give way to them. */
  requestsInFlight: RequestsInFlight;
  /** Sends the website's emails (password reset links) when SMTP_URL is set. */
  mailer: Mailer | undefined;
  /** Buffers the request log's rows and writes them in batches; undefined when REQUEST_LOG_ROWS is 0. */
  requestLog: RequestLogRecorder | undefined;
  log: Logger;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  wallClock?: Clock;
  database?: Database;
  log?: Logger;
  /** Resolves webhook host names (tests answer without any DNS). */
  webhookLookup?: HostLookup;
}

/** The settings key under which the sandbox keeps its clock offset, shared by all processes. */
export const CLOCK_OFFSET_SETTING = CLOCK_OFFSET;

export async function createServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const log = overrides.log ?? pino({ level: config.logLevel });
  const database = overrides.database ?? openDatabase(config.databaseUrl);
  const closers: Array<() => Promise<void>> = [];
  try {
    await migrateToLatest(database);

    // An in-memory database dies with the process, and so may its key: nothing touches the disk.
    const inMemory = database.dialect === 'sqlite' && database.location === ':memory:';
    const serverKey =
      config.secretKey ??
      (inMemory
        ? randomBytes(32).toString('base64url')
        : loadOrCreateKey(sandboxKeyFile(database.location, database.dialect === 'sqlite')));

    let clock = overrides.clock;
    if (!clock) {
      if (config.mode === 'production') {
        clock = systemClock;
      } else {
        const offsetClock = new OffsetClock(
          Number((await getSetting(database.db, CLOCK_OFFSET_SETTING)) ?? 0),
        );
        // The CLI moves the clock from another process; follow it within a second.
        const timer = setInterval(() => {
          getSetting(database.db, CLOCK_OFFSET_SETTING)
            .then((v) => offsetClock.setOffset(Number(v ?? 0)))
            .catch(() => {});
        }, 1000);
        timer.unref();
        closers.push(async () => clearInterval(timer));
        clock = offsetClock;
      }
    }

    const wallClock = overrides.wallClock ?? systemClock;
    let redis: Redis | undefined;
    let nonces: NonceStore;
    if (config.redisUrl) {
      redis = openRedis(config.redisUrl);
      const r = redis;
      // Give Redis a moment at start; if it is not there, start anyway and answer 503 until it is.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 3000);
        r.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      closers.push(async () => {
        r.disconnect();
      });
      nonces = new RedisNonceStore(redis);
    } else {
      nonces = new DatabaseNonceStore(
        database,
        () => wallClock.now(),
        config.oauthWindowSeconds,
        (err) => log.error({ err }, 'pruning OAuth nonces failed'),
      );
    }
    const limits = createLimitStore(config, redis, wallClock, database);
    closers.push(() => limits.close());

    const mailer = createMailer(config);
    if (mailer) closers.push(async () => mailer.close());

    const ctx = { database, clock };
    const requestsInFlight = new RequestsInFlight();
    const events = new EventDispatcher(ctx, { foreground: requestsInFlight });
    registerEventHandlers(events);
    const webhookSettings = webhookSettingsOf(config, overrides.webhookLookup);
    const webhooks = new WebhookDeliverer({
      ...ctx,
      wallClock,
      serverKey,
      config: webhookSettings,
      log,
      foreground: requestsInFlight,
    });
    registerUserEventHandlers(events, {
      exportUrl: (e) => exportUrl(config, serverKey, e),
      deliveriesQueued: () => webhooks.wake(),
    });
    closers.push(() => events.stop());
    closers.push(() => webhooks.stop());

    let requestLog: RequestLogRecorder | undefined;
    if (config.requestLogRows > 0) {
      const recorder = new RequestLogRecorder(database, config.requestLogRows, (err, rows) =>
        log.error({ err, rows }, 'writing the request log failed; these rows are lost'),
      );
      // Closed after the HTTP server (closers run in reverse), so the last answers' rows are written.
      closers.push(() => recorder.close());
      requestLog = recorder;
    }

    return {
      config,
      database,
      clock,
      wallClock,
      serverKey,
      nonces,
      credentialsVersion: new CredentialsVersion(database),
      limits,
      redis,
      events,
      webhooks,
      webhookSettings,
      requestsInFlight,
      mailer,
      requestLog,
      log,
      async close() {
        for (const close of closers.reverse()) await close();
        await nonces.close();
        await database.close();
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => {});
    await database.close().catch(() => {});
    throw err;
  }
}
