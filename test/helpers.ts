import { AssertionError } from 'node:assert';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { describe, it } from 'node:test';
import OAuth from 'oauth-1.0a';
import pg from 'pg';
import { type BuildOptions, buildApp } from '../src/app.js';
import { createApp } from '../src/auth/apps.js';
import { ManualClock, OffsetClock } from '../src/clock.js';
import { type Config, testConfig } from '../src/config.js';
import type { AccountType } from '../src/domain/catalog.js';
import { createUser } from '../src/domain/users.js';
import { createServices, type ServiceOverrides, type Services } from '../src/services.js';
import type { AppKind, DB, User } from '../src/store/schema.js';
import { CONTRACT_FAILURE_HEADER, type ContractFailure, installContractCheck } from './contract.js';
import { recordParity } from './parity-recorder.js';

/**
 * Test harness: a real app on a fresh database (SQLite in memory, or a private PostgreSQL schema when
 * TEST_POSTGRES_URL is set), requests through Fastify's inject, signed by an independent OAuth
 * implementation (the `oauth-1.0a` package), never by the server's own code.
 */

export type DialectName = 'sqlite' | 'postgres';

/** Why the runs on an outside service do not happen here (undefined: they do). */
export const NO_POSTGRES = process.env.TEST_POSTGRES_URL ? undefined : 'TEST_POSTGRES_URL is not set';
export const NO_REDIS = process.env.TEST_REDIS_URL ? undefined : 'TEST_REDIS_URL is not set';

/**
 * A suite that needs what the environment may not give (PostgreSQL, Redis): without it, one skipped
 * test carrying the reason stands for the suite, so the run's closing line counts what did not run.
 */
export function describeUnless(skipReason: string | undefined, name: string, fn: () => void): void {
  if (skipReason) it(name, { skip: skipReason }, () => {});
  else describe(name, fn);
}

/** The test file a suite is declared in, for naming the runs it skips. */
function callerFile(): string {
  const frame = new Error().stack?.split('\n').find((l) => /\.test\.ts/.test(l)) ?? '';
  const m = /((?:test|src)\/[\w/.-]+\.test\.ts)/.exec(frame);
  return m?.[1] ?? 'this file';
}

/**
 * The dialects integration suites loop over: PostgreSQL joins when its address is given. Without
 * it, each loop over the list (one PostgreSQL suite that would have run) registers one skipped
 * test with the reason, so `npm test` reports those runs instead of leaving them out silently.
 */
class Dialects extends Array<DialectName> {
  static override get [Symbol.species]() {
    return Array;
  }
  override [Symbol.iterator](): ArrayIterator<DialectName> {
    if (NO_POSTGRES) it(`${callerFile()}: the PostgreSQL run`, { skip: NO_POSTGRES }, () => {});
    return super[Symbol.iterator]();
  }
}
export const DIALECTS: readonly DialectName[] = NO_POSTGRES
  ? Dialects.from(['sqlite'] as DialectName[])
  : ['sqlite', 'postgres'];

export const BASE = 'http://api.cardbazaar.test';
export const HOST = 'api.cardbazaar.test';

export interface TestServer {
  app: FastifyInstance;
  services: Services;
  /** Marketplace time. */
  clock: ManualClock;
  /** Real time as the OAuth check sees it (clients sign with real time); tests may shift it. */
  wallClock: OffsetClock;
  dialect: DialectName;
  /** Built with routes of the test's own (`startTestServer({ routes })`): no contract to hold them to. */
  customRoutes: boolean;
  /** Answers that broke the OpenAPI document (test/contract.ts); `close()` fails with those left. */
  contractFailures: ContractFailure[];
  close(): Promise<void>;
}

export async function postgresSchemaUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_POSTGRES_URL!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop schema "${schema}" cascade`);
      await c.end();
    },
  };
}

export async function startTestServer(
  options: {
    dialect?: DialectName;
    config?: Partial<Config>;
    routes?: BuildOptions['routes'];
    /** Services of the test's own beside the clocks (a host-name resolver for webhooks). */
    overrides?: Pick<ServiceOverrides, 'webhookLookup'>;
  } = {},
): Promise<TestServer> {
  const dialect = options.dialect ?? 'sqlite';
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl = ':memory:';
  if (dialect === 'postgres') {
    const pgSchema = await postgresSchemaUrl();
    databaseUrl = pgSchema.url;
    drop = pgSchema.drop;
  }
  const clock = new ManualClock(Date.now());
  const wallClock = new OffsetClock(0);
  const config = testConfig({ databaseUrl, ...options.config });
  const services = await createServices(config, { clock, wallClock, ...options.overrides });
  const app = await buildApp(services, { routes: options.routes });
  const contractFailures: ContractFailure[] = [];
  // Every answer under /ws/v2.0 is held to the OpenAPI document, however the test asked for it.
  if (options.routes === undefined) installContractCheck(app, services, contractFailures);
  await app.ready();
  return {
    app,
    services,
    clock,
    wallClock,
    dialect,
    customRoutes: options.routes !== undefined,
    contractFailures,
    async close() {
      await app.close();
      await services.close();
      await drop?.();
      const unreported = contractFailures.filter((f) => !f.reported);
      if (unreported.length > 0)
        throw new AssertionError({
          message: `${unreported.length} answer(s) broke the OpenAPI document:\n${unreported.map((f) => `${f.method} ${f.url}: ${f.message}`).join('\n')}`,
        });
    },
  };
}

/**
 * A test server on a SQLite file of its own, for commands run beside it (the CLI opens the same
 * file); `close` also removes the file.
 */
export async function startFileTestServer(
  config: Partial<Config> = {},
): Promise<TestServer & { databaseUrl: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-test-'));
  const databaseUrl = join(dir, 'db.sqlite');
  const server = await startTestServer({ config: { databaseUrl, ...config } });
  return {
    ...server,
    databaseUrl,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let userCounter = 0;

export async function createTestUser(
  server: TestServer,
  options: { username?: string; accountType?: AccountType; country?: string; balanceCents?: number } = {},
): Promise<User> {
  userCounter++;
  return createUser(server.services, {
    username: options.username ?? `user${userCounter}-${randomBytes(3).toString('hex')}`,
    country: options.country ?? 'D',
    accountType: options.accountType ?? 'private',
    balanceCents: options.balanceCents ?? 0,
    firstName: 'Test',
    lastName: `User ${userCounter}`,
  });
}

/** The rows a table holds (tests of what a write added, or left alone). */
export async function countRows(server: TestServer, table: keyof DB): Promise<number> {
  const row = await server.services.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface TestCredentials {
  idApp: number;
  kind: AppKind;
  appToken: string;
  appSecret: string;
  accessToken: string;
  accessTokenSecret: string;
  idUser: number;
}

export async function createTestApp(
  server: TestServer,
  user: User,
  kind: AppKind = 'dedicated',
): Promise<TestCredentials> {
  const issued = await createApp(server.services, { idUser: user.idUser, kind });
  return {
    idApp: issued.app.idApp,
    kind,
    appToken: issued.appToken,
    appSecret: issued.appSecret,
    accessToken: issued.accessToken?.token ?? '',
    accessTokenSecret: issued.accessToken?.secret ?? '',
    idUser: user.idUser,
  };
}

/** A user with a dedicated app, the most common test subject. */
export async function createTestClient(
  server: TestServer,
  options: Parameters<typeof createTestUser>[1] & { kind?: AppKind } = {},
): Promise<{ user: User; cred: TestCredentials; api: ApiClient }> {
  const user = await createTestUser(server, options);
  const cred = await createTestApp(server, user, options.kind ?? 'dedicated');
  return { user, cred, api: new ApiClient(server, cred) };
}

export interface RequestOptions {
  /** Ask for JSON (the output.json segment). */
  json?: boolean;
  body?: string;
  headers?: Record<string, string>;
  /** Sign this URL instead of the one requested (to test wrong signatures). */
  signUrl?: string;
  /** Leave the Authorization header off. */
  unsigned?: boolean;
  /** The client's address as the server sees it (default 127.0.0.1). */
  remoteAddress?: string;
}

export function oauthClient(cred: Pick<TestCredentials, 'appToken' | 'appSecret'>, realm: string) {
  return new OAuth({
    consumer: { key: cred.appToken, secret: cred.appSecret },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
    realm,
  });
}

/** The Authorization header an MKM client sends, made by oauth-1.0a (realm = URL without query). */
export function signedHeader(cred: TestCredentials, method: string, url: string): string {
  const realm = url.split('?')[0]!;
  const oauth = oauthClient(cred, realm);
  const data = oauth.authorize({ url, method }, { key: cred.accessToken, secret: cred.accessTokenSecret });
  return oauth.toHeader(data).Authorization;
}

export interface ApiResult {
  status: number;
  headers: LightMyRequestResponse['headers'];
  text: string;
  /** Parsed JSON body (for `json: true` requests with a body); tests read it loosely by design. */

  json: any;
}

export class ApiClient {
  constructor(
    readonly server: TestServer,
    readonly cred: TestCredentials,
  ) {}

  url(path: string, json = false): string {
    return `${BASE}/ws/v2.0${json ? '/output.json' : ''}${path}`;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResult> {
    const url = this.url(path, options.json);
    return this.requestUrl(method, url, options);
  }

  async requestUrl(method: string, url: string, options: RequestOptions = {}): Promise<ApiResult> {
    const u = new URL(url);
    const headers: Record<string, string> = { host: u.host, ...options.headers };
    if (!options.unsigned) headers.authorization ??= signedHeader(this.cred, method, options.signUrl ?? url);
    if (options.body !== undefined) headers['content-type'] ??= 'application/xml';
    const res = await this.server.app.inject({
      method: method as 'GET',
      url: u.pathname + u.search,
      headers,
      payload: options.body,
      remoteAddress: options.remoteAddress,
    });
    recordParity(this.server.services, method, u.pathname + u.search, res.statusCode);
    // The server's hook held the answer to the OpenAPI document (test/contract.ts): a mismatch it
    // found fails this test here, with its message.
    const failure = this.server.contractFailures.find(
      (f) => !f.reported && f.method === method && f.url === u.pathname + u.search,
    );
    if (failure || res.headers[CONTRACT_FAILURE_HEADER]) {
      if (failure) failure.reported = true;
      throw new AssertionError({ message: failure?.message ?? res.body });
    }
    let json: unknown;
    if (res.body && String(res.headers['content-type'] ?? '').startsWith('application/json'))
      json = JSON.parse(res.body);
    return { status: res.statusCode, headers: res.headers, text: res.body, json };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, body?: string, options?: RequestOptions) {
    return this.request('POST', path, { ...options, body });
  }
  put(path: string, body?: string, options?: RequestOptions) {
    return this.request('PUT', path, { ...options, body });
  }
  delete(path: string, body?: string, options?: RequestOptions) {
    return this.request('DELETE', path, { ...options, body });
  }
}

/** `<request>…</request>` around inner XML. */
export const xmlRequest = (inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><request>${inner}</request>`;

/** The text of the first `<name>` element in an XML document (tests that check XML bodies). */
export function xmlValue(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([^<]*)</${name}>|<${name}/>`).exec(xml);
  return m ? (m[1] ?? '') : undefined;
}
