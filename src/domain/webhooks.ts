import { createHmac, randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { newSalt } from '../auth/credentials.js';
import type { Clock } from '../clock.js';
import type { Tx } from '../store/db.js';
import { badRequest, notFound } from '../errors.js';
import { eventJson } from '../mappers/event.js';
import { findAppById, listAppsOfUser } from '../store/apps.js';
import type { App, WebhookEndpoint } from '../store/schema.js';
import {
  attemptsOfEndpoint,
  countAttemptsOfEndpoint,
  type ClaimedDelivery,
  anyEnabledEndpoint,
  claimDueDeliveries,
  countEndpointsOfApp,
  deleteEndpoint,
  endpointsOfApps,
  failPendingDeliveries,
  findDelivery,
  completeAttempts,
  findEndpoint,
  insertEndpoint,
  pruneWebhookHistory,
  releaseDeliveries,
  requeueDelivery,
  settleDelivered,
  settleDelivery,
  updateEndpoint,
} from '../store/webhooks.js';
import type { DomainContext } from './context.js';
import { FieldCheck } from './validation.js';
import { EVENT_KIND_NAMES, isEventKind } from './user-events.js';
import { sendSystemMessage } from './system-messages.js';
import { FOREGROUND_WAIT_MS, type Foreground } from './foreground.js';
import {
  checkTarget,
  isPublicAddress,
  pinnedLookup,
  resolvingLookup,
  type HostLookup,
  type TargetRule,
  targetRuleOf,
} from './webhook-targets.js';
import type { Config } from '../config.js';

/**
 * Webhooks (docs/api.md, "Events and webhooks"): endpoints an app's owner registers, signed `POST`s of
 * each public event, retried with exponential backoff and jitter for up to three days of
 * marketplace time, an endpoint failing for three days disabled with a system message to its
 * owner, every attempt kept for 30 days.
 */

export const MAX_ENDPOINTS_PER_APP = 10;
export const MAX_URL_LENGTH = 2000;
export const RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;
export const HISTORY_MS = 30 * 24 * 3600 * 1000;
/** The first retry comes after about this long; each further one waits twice as long, up to the cap. */
export const FIRST_RETRY_MS = 30 * 1000;
export const MAX_RETRY_DELAY_MS = 6 * 3600 * 1000;
export const RESPONSE_KEPT_BYTES = 1024;
export const SIGNATURE_HEADER = 'Cardbazaar-Signature';

/**
 * What an attempt records instead of an answer when there was none: one text whatever happened on
 * the network (the address refused by the rule, a name that does not resolve, a closed port, a
 * reset, a TLS failure, a time-out), so that "Send again" tells nobody which ports of which hosts
 * are open. The server's log (debug level) has the reason.
 */
export const NO_ANSWER = 'no answer: the address was refused or unreachable, or did not answer in time';
/** What an attempt records of an answer from a private or loopback address: its status only. */
export const PRIVATE_ANSWER = 'answer from a private address: its body is not kept';

export interface WebhookSettings {
  mode: 'sandbox' | 'production';
  webhookTimeoutMs: number;
  /** Where endpoints may point (`webhook-targets.ts`). */
  targets: TargetRule;
}

/** The webhook settings of a configuration; `lookup` resolves host names (tests inject one). */
export function webhookSettingsOf(config: Config, lookup?: HostLookup): WebhookSettings {
  return {
    mode: config.mode,
    webhookTimeoutMs: config.webhookTimeoutMs,
    targets: targetRuleOf(config, lookup),
  };
}

// ---- endpoints -------------------------------------------------------------------------------

/** The signing secret: derived from the server key, never stored (like app credentials). */
export function endpointSecret(serverKey: string, e: Pick<WebhookEndpoint, 'idEndpoint' | 'salt'>): string {
  return `whsec_${createHmac('sha256', serverKey).update(`webhook:${e.idEndpoint}:${e.salt}`).digest('base64url')}`;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as the recipe in docs/api.md checks it. */
/**
 * The headers of every delivery of an event: a webhook's, and `events listen --forward-to`'s (the
 * same, so one receiver serves both). The delivery id stays the same across retries, for a
 * receiver to recognise one it already handled; the attempt counts from 1.
 */
export function deliveryHeaders(
  secret: string,
  unixSeconds: number,
  body: string,
  event: { idEvent: number; type: string },
  idDelivery: number | string,
  attempt: number,
): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'User-Agent': 'cardbazaar-webhooks/1',
    [SIGNATURE_HEADER]: signatureHeader(secret, unixSeconds, body),
    'Cardbazaar-Event-Id': String(event.idEvent),
    'Cardbazaar-Event-Type': event.type,
    'Cardbazaar-Delivery-Id': String(idDelivery),
    'Cardbazaar-Delivery-Attempt': String(attempt),
  };
}

export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Checks an endpoint address; answers the normalized URL. */
export function checkEndpointUrl(settings: WebhookSettings, raw: string, check: FieldCheck): string {
  const text = raw.trim();
  let url: URL | undefined;
  if (text === '') check.add('url', 'webhook_url_required', 'Give the address the events are sent to.');
  else if (text.length > MAX_URL_LENGTH)
    check.add('url', 'webhook_url_too_long', `An address has at most ${MAX_URL_LENGTH} characters.`, {
      max: MAX_URL_LENGTH,
    });
  else {
    try {
      url = new URL(text);
    } catch {
      check.add('url', 'webhook_url_invalid', `"${text}" is not an absolute URL.`);
    }
  }
  if (!url) return text;
  const httpAllowed = settings.mode === 'sandbox';
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:')) {
    check.add(
      'url',
      'webhook_scheme',
      httpAllowed
        ? 'A webhook address starts with https:// or http://.'
        : 'A webhook address starts with https://.',
    );
  } else if (url.username || url.password) {
    check.add('url', 'webhook_credentials', 'A webhook address carries no user name or password.');
  }
  url.hash = '';
  return url.toString();
}

/**
 * Where the endpoint points, resolved now (docs/api.md, "Where endpoints may point"): refused when it
 * is, or resolves to, an address that is not public, unless private targets are allowed.
 */
async function checkEndpointTarget(settings: WebhookSettings, url: string, check: FieldCheck) {
  const target = await checkTarget(settings.targets, new URL(url));
  if (target.ok) return;
  if (target.reason === 'private') {
    check.add(
      'url',
      'webhook_private',
      'This address is, or resolves to, a loopback, private, link-local or otherwise non-public address: such webhook addresses are refused here (the operator may allow them with WEBHOOK_ALLOW_PRIVATE=true).',
    );
  } else {
    check.add('url', 'webhook_unresolvable', 'The host name of this address does not resolve.');
  }
}

/** `*` (or nothing) for every kind, else a comma-separated list of known kinds. */
export function parseKinds(raw: string | string[] | undefined, check: FieldCheck): string {
  const list = (Array.isArray(raw) ? raw : (raw ?? '').split(','))
    .map((k) => k.trim())
    .filter((k) => k !== '');
  if (list.length === 0 || list.includes('*')) return '*';
  const unknown = list.filter((k) => !isEventKind(k));
  if (unknown.length > 0) {
    check.add(
      'kinds',
      'unknown_event_kind',
      `Unknown event kind "${unknown[0]}" (known: ${EVENT_KIND_NAMES.join(', ')}).`,
      {
        kind: unknown[0]!,
      },
    );
  }
  return [...new Set(list)].join(',');
}

export interface EndpointInput {
  idApp: number;
  url: string;
  kinds?: string | string[];
  enabled?: boolean;
  /**
   * Strict order: a failing delivery holds back the endpoint's later ones until it succeeds or is
   * given up (docs/api.md, "Strict order"). Off by default.
   */
  strictOrder?: boolean;
}

/** The app the endpoint belongs to: one of the user's, live, dedicated or third-party. */
async function ownApp(ctx: DomainContext, idUser: number | null, idApp: number): Promise<App> {
  const app = await findAppById(ctx.database.db, idApp);
  if (!app || app.revokedAt !== null || (idUser !== null && app.idUser !== idUser)) {
    throw notFound(`You have no app ${idApp}.`, { field: 'idApp' });
  }
  return app;
}

/** An app of the user's whose webhooks the website shows: live, and not a widget (which gets no events). */
export async function appForWebhooks(ctx: DomainContext, idUser: number, idApp: number): Promise<App> {
  const app = await ownApp(ctx, idUser, idApp);
  if (app.kind === 'widget') throw notFound(`You have no app ${idApp}.`, { field: 'idApp' });
  return app;
}

/** The name of the app an endpoint belongs to (its page heads with it; a revoked app keeps its name). */
export async function endpointAppName(ctx: DomainContext, endpoint: Pick<WebhookEndpoint, 'idApp'>) {
  return (await findAppById(ctx.database.db, endpoint.idApp))?.name ?? '';
}

/** Registers an endpoint; `idUser` null is the operator (any user's app). */
export async function createEndpoint(
  ctx: DomainContext,
  settings: WebhookSettings,
  idUser: number | null,
  input: EndpointInput,
): Promise<WebhookEndpoint> {
  const check = new FieldCheck();
  const url = checkEndpointUrl(settings, input.url, check);
  const kinds = parseKinds(input.kinds, check);
  check.throwIfAny();
  await checkEndpointTarget(settings, url, check);
  check.throwIfAny();
  const app = await ownApp(ctx, idUser, input.idApp);
  if (app.kind === 'widget') {
    throw badRequest('A widget app reaches only the public marketplace; it receives no events.', {
      field: 'idApp',
      code: 'webhook_widget',
    });
  }
  return ctx.database.transaction(async (tx) => {
    if ((await countEndpointsOfApp(tx, app.idApp)) >= MAX_ENDPOINTS_PER_APP) {
      throw badRequest(`An app has at most ${MAX_ENDPOINTS_PER_APP} webhook endpoints.`, {
        field: 'url',
        code: 'too_many_webhooks',
      });
    }
    return insertEndpoint(tx, {
      idApp: app.idApp,
      url,
      kinds,
      enabled: input.enabled === false ? 0 : 1,
      strictOrder: input.strictOrder === true ? 1 : 0,
      salt: newSalt(),
      createdAt: ctx.clock.now(),
    });
  });
}

/** The endpoints of a user's apps (revoked apps included: their history stays visible). */
export async function listEndpoints(ctx: DomainContext, idUser: number): Promise<WebhookEndpoint[]> {
  const apps = await listAppsOfUser(ctx.database.db, idUser);
  return endpointsOfApps(
    ctx.database.db,
    apps.map((a) => a.idApp),
  );
}

/** An endpoint of one of the user's apps (`idUser` null: the operator's, any). */
export async function ownEndpoint(
  ctx: DomainContext,
  idUser: number | null,
  idEndpoint: number,
): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(ctx.database.db, idEndpoint);
  if (endpoint) {
    const app = await findAppById(ctx.database.db, endpoint.idApp);
    if (app && (idUser === null || app.idUser === idUser)) return endpoint;
  }
  throw notFound(`There is no webhook endpoint ${idEndpoint} of yours.`, { field: 'idEndpoint' });
}

export async function setEndpointEnabled(
  ctx: DomainContext,
  idUser: number | null,
  idEndpoint: number,
  enabled: boolean,
): Promise<void> {
  await ownEndpoint(ctx, idUser, idEndpoint);
  await updateEndpoint(
    ctx.database.db,
    idEndpoint,
    enabled
      ? { enabled: 1, disabledAt: null, failingSince: null }
      : { enabled: 0, disabledAt: ctx.clock.now() },
  );
}

/** Turns an endpoint's strict order on or off (`idUser` null: the operator). */
export async function setEndpointStrictOrder(
  ctx: DomainContext,
  idUser: number | null,
  idEndpoint: number,
  strictOrder: boolean,
): Promise<void> {
  await ownEndpoint(ctx, idUser, idEndpoint);
  await updateEndpoint(ctx.database.db, idEndpoint, { strictOrder: strictOrder ? 1 : 0 });
}

export async function removeEndpoint(
  ctx: DomainContext,
  idUser: number | null,
  idEndpoint: number,
): Promise<void> {
  await ownEndpoint(ctx, idUser, idEndpoint);
  await ctx.database.transaction((tx) => deleteEndpoint(tx, idEndpoint));
}

export async function endpointAttempts(
  ctx: DomainContext,
  idUser: number | null,
  idEndpoint: number,
  limit = 20,
) {
  await ownEndpoint(ctx, idUser, idEndpoint);
  return attemptsOfEndpoint(ctx.database.db, idEndpoint, limit);
}

/** One page of an endpoint's attempts, newest first, and how many there are in all. */
export async function endpointAttemptsPage(
  ctx: DomainContext,
  idUser: number | null,
  idEndpoint: number,
  { offset, limit }: { offset: number; limit: number },
) {
  await ownEndpoint(ctx, idUser, idEndpoint);
  const [attempts, total] = await Promise.all([
    attemptsOfEndpoint(ctx.database.db, idEndpoint, limit, offset),
    countAttemptsOfEndpoint(ctx.database.db, idEndpoint),
  ]);
  return { attempts, total };
}

/** "Send again": the delivery is queued for now, with three fresh days of retries. */
export async function sendAgain(
  ctx: DomainContext,
  idUser: number | null,
  idDelivery: number,
): Promise<void> {
  const delivery = await findDelivery(ctx.database.db, idDelivery);
  if (!delivery) throw notFound(`There is no delivery ${idDelivery} of yours.`, { field: 'idDelivery' });
  const endpoint = await ownEndpoint(ctx, idUser, delivery.idEndpoint).catch(() => {
    throw notFound(`There is no delivery ${idDelivery} of yours.`, { field: 'idDelivery' });
  });
  if (endpoint.enabled !== 1) {
    throw badRequest('The endpoint is disabled: enable it first.', { field: 'idDelivery' });
  }
  await requeueDelivery(ctx.database.db, idDelivery, ctx.clock.now());
}

// ---- delivery --------------------------------------------------------------------------------

export interface PostResult {
  status: number | null;
  /** The first 1 KB of the answer from a public address, else `NO_ANSWER` or `PRIVATE_ANSWER`. */
  response: string;
  durationMs: number;
  /** Why there was no answer (for the log and the operator's own tools, never for the page). */
  detail?: string;
}

/**
 * Connections kept open between deliveries: a checkout raises a hundred events for one seller, and
 * a new connection for each cost more than the rest of its delivery. An idle connection is closed
 * after two seconds, before receivers commonly close theirs (Node's servers after five), so a
 * delivery is seldom sent on a connection the receiver is closing. A new connection is opened
 * through the request's `lookup`, pinned to the addresses the target check accepted.
 */
const KEEP_ALIVE = { keepAlive: true, maxSockets: 8, maxFreeSockets: 64, timeout: 2000 };
let agents: { http: http.Agent; https: https.Agent } | undefined;
function agentFor(protocol: string): http.Agent {
  agents ??= { http: new http.Agent(KEEP_ALIVE), https: new https.Agent(KEEP_ALIVE) };
  return protocol === 'https:' ? agents.https : agents.http;
}

/**
 * One `POST`: no redirects followed, at most `timeoutMs` for the whole exchange (the name's
 * resolution included). The target is checked first (`checkTarget`) and the connection made to
 * the very addresses checked. Of the answer, the status is kept, and the first 1 KB of the body
 * only when it came from a public address: an internal service's bytes are never recorded.
 */
export function postJson(
  target: string | URL,
  body: string,
  headers: Record<string, string | number>,
  timeoutMs: number,
  rule: TargetRule,
): Promise<PostResult> {
  const started = performance.now();
  const done = (status: number | null, response: string, detail?: string): PostResult => ({
    status,
    response,
    durationMs: Math.round(performance.now() - started),
    ...(detail === undefined ? {} : { detail }),
  });
  const noAnswer = (detail: string) => done(null, NO_ANSWER, detail);
  return new Promise((resolve) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      finish(noAnswer(`no answer within ${timeoutMs} ms`));
      req?.destroy();
    }, timeoutMs);
    let url: URL;
    try {
      url = typeof target === 'string' ? new URL(target) : target;
    } catch {
      finish(noAnswer('invalid address'));
      return;
    }
    checkTarget(rule, url).then(
      (check) => {
        if (settled) return;
        if (!check.ok) {
          finish(
            noAnswer(
              check.reason === 'private'
                ? 'refused: the address is, or resolves to, a private or loopback address'
                : 'refused: the host name does not resolve',
            ),
          );
          return;
        }
        const client = url.protocol === 'https:' ? https : http;
        headers['Content-Length'] = Buffer.byteLength(body);
        req = client.request(
          url,
          {
            method: 'POST',
            headers,
            lookup: (rule.allowPrivate
              ? resolvingLookup(rule.lookup)
              : pinnedLookup(check.addresses)) as never,
            agent: agentFor(url.protocol),
          },
          (res) => {
            const status = res.statusCode ?? null;
            const remote = res.socket?.remoteAddress;
            if (remote === undefined || !isPublicAddress(remote)) {
              finish(done(status, PRIVATE_ANSWER));
              res.destroy();
              return;
            }
            const chunks: Buffer[] = [];
            let kept = 0;
            res.on('data', (chunk: Buffer) => {
              if (kept < RESPONSE_KEPT_BYTES) {
                chunks.push(chunk);
                kept += chunk.length;
              }
              if (kept >= RESPONSE_KEPT_BYTES) {
                finish(done(status, Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString('utf8')));
                res.destroy();
              }
            });
            const answered = () => finish(done(status, text(chunks)));
            res.on('end', answered);
            res.on('error', answered);
          },
        );
        req.on('error', (err) => finish(noAnswer(err.message)));
        req.end(body);
      },
      (err: Error) => finish(noAnswer(err.message)),
    );
  });
}

const text = (chunks: Buffer[]) =>
  chunks.length === 0
    ? ''
    : chunks.length === 1
      ? chunks[0]!.toString('utf8')
      : Buffer.concat(chunks).toString('utf8');

/** The delay before retry number `attempts` (1 = the first retry): doubling, capped, jittered. */
export function retryDelay(attempts: number): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempts - 1, 30), MAX_RETRY_DELAY_MS);
  // "Equal jitter": between half and all of the step, so instances retrying one dead receiver
  // spread out while the backoff still grows.
  return Math.round(base / 2 + randomInt(0, Math.floor(base / 2) + 1));
}

/**
 * Each delivery waits for the requests in flight (`FOREGROUND_WAIT_MS` at most). Under constant
 * load each endpoint still gets a delivery this often (a few per cent of one core), so deliveries
 * fall behind but never stop, and a claimed batch of 50 waits at most half a second in all, far
 * inside its lease.
 */
export { FOREGROUND_WAIT_MS, type Foreground };

export interface DelivererContext extends DomainContext {
  wallClock: Clock;
  serverKey: string;
  config: WebhookSettings;
  log?: Logger;
  /** Requests come first: each delivery waits for them (see `FOREGROUND_WAIT_MS`). */
  foreground?: Foreground;
}

const CLAIM_BATCH = 50;

const isSuccess = (r: PostResult) => r.status !== null && r.status >= 200 && r.status < 300;

/** One attempt's outcome, waiting to be recorded. */
interface Outcome {
  c: ClaimedDelivery;
  result: PostResult;
  /** Marketplace time when the attempt began, and when its answer came. */
  startedAt: number;
  now: number;
}

/**
 * Delivers due webhook attempts. Several instances on one database share the work: each claims
 * rows for a lease (real time) before sending, settles them afterwards only while that lease
 * holds, and a process killed in between leaves them to be claimed again once the lease runs out.
 */
export class WebhookDeliverer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private again = false;
  private lastPrune = 0;
  readonly instanceId = randomBytes(6).toString('hex');

  constructor(private readonly ctx: DelivererContext) {}

  /** How long a claim holds: the answer's time limit with room to record it. */
  get leaseMs(): number {
    return 2 * this.ctx.config.webhookTimeoutMs + 1000;
  }

  /** Delivers what is due now; returns how many attempts were made. */
  deliverDue(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Something was queued: deliver soon (coalesced with a running pass). */
  wake(): void {
    if (!this.timer) return;
    this.deliverDue().catch((err) => this.ctx.log?.error({ err }, 'webhook delivery failed'));
  }

  private async pass(): Promise<number> {
    let attempts = 0;
    for (;;) {
      this.again = false;
      // The claim and the records are transactions of their own, and give way to requests too.
      await this.ctx.foreground?.idle(FOREGROUND_WAIT_MS);
      const now = this.ctx.clock.now();
      await this.prune(now);
      const wallNow = this.ctx.wallClock.now();
      const token = `${this.instanceId}:${randomBytes(6).toString('hex')}`;
      // Only deliveries to enabled endpoints are claimed: with none (most marketplaces), a read
      // answers what the write transaction would, four times a second.
      const claimed = (await anyEnabledEndpoint(this.ctx.database.db))
        ? await claimDueDeliveries(
            this.ctx.database,
            now,
            wallNow,
            wallNow + this.leaseMs,
            token,
            CLAIM_BATCH,
          )
        : [];
      if (claimed.length === 0 && !this.again) return attempts;
      // In order per endpoint; endpoints side by side.
      const byEndpoint = new Map<number, ClaimedDelivery[]>();
      for (const c of claimed) {
        const list = byEndpoint.get(c.endpoint.idEndpoint);
        if (list) list.push(c);
        else byEndpoint.set(c.endpoint.idEndpoint, [c]);
      }
      // An endpoint's secret is derived and its address parsed once a pass, not once a delivery.
      const secrets = new Map<number, string>();
      const urls = new Map<number, URL>();
      for (const id of byEndpoint.keys()) {
        try {
          urls.set(id, new URL(byEndpoint.get(id)![0]!.endpoint.url));
        } catch {
          // postJson answers "invalid address" for it.
        }
      }
      // Outcomes are recorded several to a transaction (a transaction per attempt cost about as
      // much as sending it), at the end of an endpoint's list, or once half the lease has gone,
      // while the claim still holds. A process killed before recording a success sends that
      // delivery again: at least once, as promised. Past half the lease (a slow receiver), the rest
      // of the list is given back unsent rather than sent after the claim may have run out, when
      // another instance could be sending it too.
      await Promise.all(
        [...byEndpoint.values()].map(async (list) => {
          const outcomes: Outcome[] = [];
          for (const [i, c] of list.entries()) {
            await this.ctx.foreground?.idle(FOREGROUND_WAIT_MS);
            outcomes.push(await this.send(c, secrets, urls));
            attempts++;
            if (this.ctx.wallClock.now() - wallNow > this.leaseMs / 2) {
              await this.record(outcomes.splice(0), token, list.slice(i + 1));
              return;
            }
          }
          if (outcomes.length === 0) return;
          await this.ctx.foreground?.idle(FOREGROUND_WAIT_MS);
          await this.record(outcomes, token);
        }),
      );
      if (claimed.length < CLAIM_BATCH && !this.again) return attempts;
    }
  }

  private async prune(now: number): Promise<void> {
    if (now - this.lastPrune < 3600 * 1000 && now >= this.lastPrune) return;
    this.lastPrune = now;
    await pruneWebhookHistory(this.ctx.database.db, now - HISTORY_MS);
  }

  private async send(
    c: ClaimedDelivery,
    secrets: Map<number, string>,
    urls: Map<number, URL>,
  ): Promise<Outcome> {
    const body = eventJson(c.event);
    const unix = Math.floor(this.ctx.wallClock.now() / 1000);
    let secret = secrets.get(c.endpoint.idEndpoint);
    if (secret === undefined) {
      secret = endpointSecret(this.ctx.serverKey, c.endpoint);
      secrets.set(c.endpoint.idEndpoint, secret);
    }
    const startedAt = this.ctx.clock.now();
    const result = await postJson(
      urls.get(c.endpoint.idEndpoint) ?? c.endpoint.url,
      body,
      deliveryHeaders(secret, unix, body, c.event, c.delivery.idDelivery, c.delivery.attempts),
      this.ctx.config.webhookTimeoutMs,
      this.ctx.config.targets,
    );
    if (result.detail !== undefined) {
      this.ctx.log?.debug(
        { idEndpoint: c.endpoint.idEndpoint, idDelivery: c.delivery.idDelivery, reason: result.detail },
        'webhook attempt got no answer',
      );
    }
    return { c, result, startedAt, now: this.ctx.clock.now() };
  }

  private record(outcomes: Outcome[], token: string, unsent: ClaimedDelivery[] = []): Promise<void> {
    return this.ctx.database.transaction(async (tx) => {
      // What happened on the wire is kept even when the lease was lost meanwhile.
      await completeAttempts(
        tx,
        outcomes.map(({ c, result, startedAt }) => ({
          idAttempt: c.idAttempt,
          at: startedAt,
          status: result.status,
          durationMs: result.durationMs,
          response: result.response,
        })),
      );
      // A success on an endpoint that was not failing when claimed, with no failure before it in
      // this batch, only settles its delivery: those are settled together in one statement,
      // finished when the batch's last of them was answered. The rest are recorded one by one.
      const delivered: number[] = [];
      let deliveredAt = 0;
      const rest: Outcome[] = [];
      const failing = new Set<number>();
      for (const outcome of outcomes) {
        const { c, result, now } = outcome;
        if (!isSuccess(result)) failing.add(c.endpoint.idEndpoint);
        else if (c.endpoint.failingSince === null && !failing.has(c.endpoint.idEndpoint)) {
          delivered.push(c.delivery.idDelivery);
          deliveredAt = Math.max(deliveredAt, now);
          continue;
        }
        rest.push(outcome);
      }
      await settleDelivered(tx, delivered, token, deliveredAt);
      // Endpoints a failure of this batch may have marked failing since they were claimed.
      const failed = new Set<number>();
      for (const outcome of rest) await this.recordOne(tx, outcome, token, failed);
      await releaseDeliveries(
        tx,
        unsent.map((c) => ({ idDelivery: c.delivery.idDelivery, idAttempt: c.idAttempt })),
        token,
      );
    });
  }

  private async recordOne(
    tx: Tx,
    { c, result, now }: Outcome,
    token: string,
    failed: Set<number>,
  ): Promise<void> {
    const ok = isSuccess(result);
    if (!ok) failed.add(c.endpoint.idEndpoint);
    // The claim counted this attempt already.
    const attempts = c.delivery.attempts;
    const giveUpAt = c.delivery.createdAt + RETRY_WINDOW_MS;
    const changes = ok
      ? { state: 'delivered' as const, finishedAt: now }
      : now >= giveUpAt
        ? { state: 'failed' as const, finishedAt: now }
        : { nextAttemptAt: Math.min(now + retryDelay(attempts), giveUpAt) };
    // Lost the lease (this attempt outlived it): the delivery belongs to whoever claimed it since.
    if (!(await settleDelivery(tx, c.delivery.idDelivery, token, changes))) return;
    // A success on an endpoint that was not failing when claimed has nothing more to record.
    if (ok && c.endpoint.failingSince === null && !failed.has(c.endpoint.idEndpoint)) return;
    const endpoint = await findEndpoint(tx, c.endpoint.idEndpoint);
    if (!endpoint) return;
    if (ok) {
      if (endpoint.failingSince !== null)
        await updateEndpoint(tx, endpoint.idEndpoint, { failingSince: null });
      return;
    }
    if (endpoint.failingSince === null) {
      await updateEndpoint(tx, endpoint.idEndpoint, { failingSince: now });
    } else if (endpoint.enabled === 1 && now - endpoint.failingSince >= RETRY_WINDOW_MS) {
      await updateEndpoint(tx, endpoint.idEndpoint, { enabled: 0, disabledAt: now });
      await failPendingDeliveries(tx, endpoint.idEndpoint, now);
      const app = await findAppById(tx, endpoint.idApp);
      if (app) {
        await sendSystemMessage(
          tx,
          now,
          app.idUser,
          `Your webhook endpoint ${endpoint.idEndpoint} (${endpoint.url}) of app "${app.name}" has failed every delivery for 3 days and was disabled. ` +
            `Last answer: ${result.status ?? 'none'} ${result.response.slice(0, 200)}. Enable it again on your profile page once it answers 2xx.`,
        );
      }
    }
  }

  start(intervalMs = 250): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.deliverDue().catch((err) => this.ctx.log?.error({ err }, 'webhook delivery failed'));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }
}
