import { parseDuration } from '../clock.js';
import { ApiError, badRequest } from '../errors.js';
import { formatTimestamp } from '../format.js';
import { hashToken } from '../auth/credentials.js';
import type { Config } from '../config.js';
import { findAppByTokenHash } from '../store/apps.js';
import { deleteFaults, insertFault, listFaults, takeFaultRemaining } from '../store/faults.js';
import { findUserByUsername } from '../store/users.js';
import type { Fault } from '../store/schema.js';
import type { DomainContext } from './context.js';
import { mulberry32 } from '../random.js';

/**
 * Injected faults (sandbox): the failures client programs meet on the live service and must
 * survive, reproduced on request so a client's test suite can make them happen again. A fault names
 * a path pattern (relative to `/ws/v2.0`, as the API's documentation writes paths), optionally a
 * method, and what happens to a matching request: an error answer as the real condition gives it,
 * a delay, a connection closed without an answer, or a body cut short or spoiled; each with a
 * probability, for the next N requests only, for one app or one user, until an expiry on the
 * marketplace clock.
 */

/** A fault answers with any status from 400 to 599, each worded as the live service words it (src/http/faults.ts). */
export const MIN_FAULT_STATUS = 400;
export const MAX_FAULT_STATUS = 599;
/** What a fault may do to the answer's body. */
export const FAULT_BODIES = ['truncated', 'malformed'] as const;
export type FaultBody = (typeof FAULT_BODIES)[number];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
const MAX_LATENCY_MS = 5 * 60_000;
const MAX_PATH = 500;
const MAX_TIMES = 1_000_000;
/** A year on the marketplace clock: an expiry is for a test, not for ever. */
const MAX_EXPIRY_MS = 366 * 24 * 3_600_000;

/**
 * A fault as the command (`cardbazaar faults add`) and the control API (`POST /_cardbazaar/faults`,
 * its JSON passed as is) give it: strings from the command line, JSON values from the API.
 */
export interface FaultInput {
  path: string;
  method?: string;
  status?: string | number;
  description?: string;
  rate?: string | number;
  /** A duration (`2s`, `500ms`) or milliseconds. */
  latency?: string | number;
  drop?: boolean;
  seed?: string | number;
  /** Only the next N matching requests (counted in the database, across processes). */
  times?: string | number;
  /** Only requests signed with this app token (oauth_consumer_key). */
  app?: string;
  /** Only requests made for this user (by username). */
  user?: string;
  /** Spoil the answer's body: `truncated` (cut short, connection closed) or `malformed`. */
  body?: string;
  /** The fault ends this long after it was added, on the marketplace clock (`2h`, `8d`). */
  expiresIn?: string | number;
}

const INPUT_FIELDS = new Set<string>([
  'path',
  'method',
  'status',
  'description',
  'rate',
  'latency',
  'drop',
  'seed',
  'times',
  'app',
  'user',
  'body',
  'expiresIn',
]);

/** A fault as `faults list` prints it. */
export interface FaultView {
  idFault: number;
  method: string | null;
  path: string;
  status: number | null;
  description: string | null;
  rate: number;
  latencyMs: number;
  drop: boolean;
  seed: number | null;
  /** The N of "the next N matching requests", and how many of them are left; null: no count. */
  times: number | null;
  remaining: number | null;
  app: string | null;
  user: string | null;
  body: FaultBody | null;
  createdAt: string;
  /** When it stops applying, on the marketplace clock; null: never. */
  expiresAt: string | null;
}

export const faultView = (f: Fault): FaultView => ({
  idFault: f.idFault,
  method: f.method,
  path: f.path,
  status: f.status,
  description: f.description,
  rate: f.rate,
  latencyMs: f.latencyMs,
  drop: f.drop === 1,
  seed: f.seed === null ? null : Number(f.seed),
  times: f.times,
  remaining: f.remaining,
  app: f.app,
  user: f.user,
  body: f.body as FaultBody | null,
  createdAt: formatTimestamp(Number(f.createdAt)),
  expiresAt: f.expiresAt === null ? null : formatTimestamp(Number(f.expiresAt)),
});

/** `/ws/v2.0/articles/*` and `/articles/*` name the same resources. */
function normalizePath(raw: string): string {
  return raw.trim().replace(/^\/ws\/v2\.0(?:\/output\.(?:json|xml))?(?=\/)/, '');
}

// Whitespace, controls and what would end a path: a pattern is matched against the path alone.
// eslint-disable-next-line no-control-regex -- these are exactly the characters to refuse
const NOT_IN_PATH = /[\s\u0000-\u001f\u007f?#]/;
// The description becomes the answer's text, which XML cannot carry these in.
// eslint-disable-next-line no-control-regex -- these are exactly the characters to refuse
const NOT_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

/** A value given or not: the command leaves options out, JSON may say null. */
const given = (v: unknown) => v !== undefined && v !== null && v !== '';

function text(input: FaultInput, field: keyof FaultInput): string | undefined {
  const v = input[field];
  if (!given(v)) return undefined;
  if (typeof v !== 'string') throw badRequest(`The ${field} must be a string.`, { field });
  return v;
}

function integer(input: FaultInput, field: keyof FaultInput, min: number, max: number, what: string) {
  const v = input[field];
  if (!given(v)) return null;
  const n = typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw badRequest(what, { field });
  }
  return n;
}

function duration(input: FaultInput, field: 'latency' | 'expiresIn', label: string): number | null {
  const v = input[field];
  if (!given(v)) return null;
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0)
      throw badRequest(`The ${label} is a whole number of milliseconds.`, { field });
    return v;
  }
  if (typeof v !== 'string') throw badRequest(`The ${label} is a duration such as 2s or 1h30m.`, { field });
  try {
    return parseDuration(v);
  } catch (err) {
    throw badRequest(`The ${label} is ${(err as Error).message}.`, { field });
  }
}

/** Checks a fault as given, without the database (the scope's app and user are looked up after). */
export function parseFaultInput(input: FaultInput) {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw badRequest('A fault is an object with at least a path.', { field: 'path' });
  }
  const unknown = Object.keys(input).filter((k) => !INPUT_FIELDS.has(k));
  if (unknown.length > 0) {
    throw badRequest(
      `Unknown fault field${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; a fault takes ${[...INPUT_FIELDS].join(', ')}.`,
      { field: unknown[0] },
    );
  }
  const path = normalizePath(text(input, 'path') ?? '');
  if (!path.startsWith('/') || path.length > MAX_PATH || NOT_IN_PATH.test(path)) {
    throw badRequest(
      `The path must start with "/", be relative to /ws/v2.0 (e.g. /articles/*), hold no spaces, query or control characters, and be at most ${MAX_PATH} characters.`,
      { field: 'path' },
    );
  }
  let method: string | null = null;
  const rawMethod = text(input, 'method');
  if (rawMethod !== undefined) {
    method = rawMethod.trim().toUpperCase();
    if (!(METHODS as readonly string[]).includes(method)) {
      throw badRequest(`The method must be one of ${METHODS.join(', ')}.`, { field: 'method' });
    }
  }
  const status = integer(
    input,
    'status',
    MIN_FAULT_STATUS,
    MAX_FAULT_STATUS,
    `The status must be an error status from ${MIN_FAULT_STATUS} to ${MAX_FAULT_STATUS}.`,
  );
  if (given(input.drop) && typeof input.drop !== 'boolean') {
    throw badRequest('drop is true or false.', { field: 'drop' });
  }
  const drop = input.drop === true;
  const latencyMs = duration(input, 'latency', 'latency') ?? 0;
  if (latencyMs > MAX_LATENCY_MS) {
    throw badRequest('The latency may be at most 5m.', { field: 'latency' });
  }
  let body: FaultBody | null = null;
  const rawBody = text(input, 'body');
  if (rawBody !== undefined) {
    if (!(FAULT_BODIES as readonly string[]).includes(rawBody)) {
      throw badRequest(`The body is one of ${FAULT_BODIES.join(', ')}.`, { field: 'body' });
    }
    body = rawBody as FaultBody;
  }
  if (drop && status !== null) {
    throw badRequest('A dropped connection has no status: give --drop or --status, not both.', {
      field: 'drop',
    });
  }
  if (drop && body !== null) {
    throw badRequest('A dropped connection has no body to spoil: give --drop or --body, not both.', {
      field: 'body',
    });
  }
  if (!drop && status === null && latencyMs === 0 && body === null) {
    throw badRequest('A fault needs a status, a latency, a body or --drop.', { field: 'status' });
  }
  let rate = 1;
  if (given(input.rate)) {
    rate =
      typeof input.rate === 'string' && input.rate.trim() !== ''
        ? Number(input.rate)
        : (input.rate as number);
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0 || rate > 1) {
      throw badRequest('The rate is the share of matching requests the fault hits: above 0, at most 1.', {
        field: 'rate',
      });
    }
  }
  const seed = integer(input, 'seed', 0, 0xffffffff, 'The seed is an integer from 0 to 4294967295.');
  const times = integer(
    input,
    'times',
    1,
    MAX_TIMES,
    `times is how many matching requests the fault hits, from 1 to ${MAX_TIMES}.`,
  );
  const description = text(input, 'description')?.trim() || null;
  if (description !== null && (description.length > 500 || NOT_IN_TEXT.test(description))) {
    throw badRequest('The description is at most 500 characters of text.', { field: 'description' });
  }
  if (description !== null && status === null) {
    throw badRequest('A description goes with a status (it is the answer’s mkm_error_description).', {
      field: 'description',
    });
  }
  const expiresInMs = duration(input, 'expiresIn', 'expiry');
  if (expiresInMs !== null && (expiresInMs <= 0 || expiresInMs > MAX_EXPIRY_MS)) {
    throw badRequest('The expiry is a duration above 0 and at most 366d.', { field: 'expiresIn' });
  }
  const app = text(input, 'app')?.trim() || null;
  const user = text(input, 'user')?.trim() || null;
  return {
    method,
    path,
    status,
    description,
    rate,
    latencyMs,
    drop: drop ? 1 : 0,
    seed,
    times,
    body,
    app,
    user,
    expiresInMs,
  };
}

/**
 * Whether some route of the API (its `METHOD /path` keys, `:name` for a parameter) can answer a
 * request the pattern matches: a fault on a path nobody serves would never apply, and a typo there
 * would pass for a client that copes. Segment by segment: a route's parameter takes any segment of
 * the pattern, a `*` of the pattern any route segment it can stand for, `**` any number of them.
 */
export function patternReachesRoute(pattern: string, method: string | null, routeKeys: readonly string[]) {
  const trimmed = pattern.length > 1 ? pattern.replace(/\/+$/, '') : pattern;
  const fault = trimmed.split('/').slice(1);
  for (const key of routeKeys) {
    const space = key.indexOf(' ');
    if (method !== null && key.slice(0, space) !== method) continue;
    const route = key
      .slice(space + 1)
      .split('/')
      .slice(1);
    if (segmentsMatch(fault, 0, route, 0)) return true;
  }
  return false;
}

function segmentsMatch(fault: string[], fi: number, route: string[], ri: number): boolean {
  if (fi === fault.length) return ri === route.length;
  const seg = fault[fi]!;
  if (seg.includes('**')) {
    if (seg === '**') {
      for (let k = ri; k <= route.length; k++) if (segmentsMatch(fault, fi + 1, route, k)) return true;
      return false;
    }
    // `**` inside a segment (`/stock**`): the rest of the pattern against a route path with a
    // sample value for each parameter.
    const rest =
      '/' +
      route
        .slice(ri)
        .map((r) => (r.startsWith(':') ? '1' : r))
        .join('/');
    return pathPattern('/' + fault.slice(fi).join('/')).test(rest);
  }
  if (ri === route.length) return false;
  const r = route[ri]!;
  const fits = r.startsWith(':') ? seg !== '' : pathPattern('/' + seg).test('/' + r);
  return fits && segmentsMatch(fault, fi + 1, route, ri + 1);
}

/** The context adding a fault needs: the store and clock, and the configuration the routes are read from. */
export type FaultContext = DomainContext & { config: Config };

export async function addFault(ctx: FaultContext, input: FaultInput): Promise<FaultView> {
  const { app, user, expiresInMs, ...values } = parseFaultInput(input);
  // The routes the server registers for this configuration (read lazily: the command and the
  // control API reach this without a server).
  const { apiRouteKeys } = await import('../routes/route-keys.js');
  if (!patternReachesRoute(values.path, values.method, apiRouteKeys(ctx.config))) {
    throw badRequest(
      `No route of the API matches ${values.method ?? 'any method'} ${values.path}: a fault there would never apply. Paths are relative to /ws/v2.0, as in /articles/:idProduct or /stock/**.`,
      { field: 'path' },
    );
  }
  const db = ctx.database.db;
  let idApp: number | null = null;
  if (app !== null) {
    const found = await findAppByTokenHash(db, hashToken(app));
    if (!found) throw badRequest(`There is no app with the app token ${app}.`, { field: 'app' });
    idApp = found.idApp;
  }
  let idUser: number | null = null;
  if (user !== null) {
    const found = await findUserByUsername(db, user);
    if (!found) throw badRequest(`There is no user ${user}.`, { field: 'user' });
    idUser = found.idUser;
  }
  const now = ctx.clock.now();
  const fault = await ctx.database.transaction((tx) =>
    insertFault(tx, {
      ...values,
      remaining: values.times,
      app,
      idApp,
      user,
      idUser,
      createdAt: now,
      expiresAt: expiresInMs === null ? null : now + expiresInMs,
    }),
  );
  return faultView(fault);
}

/**
 * Takes one of a counted fault's remaining hits, in SQL (a conditional update, so N hits are handed
 * out exactly once whatever the number of processes and concurrent requests); false when none is left.
 */
export async function takeFaultHit(ctx: DomainContext, idFault: number): Promise<boolean> {
  return ctx.database.transaction((tx) => takeFaultRemaining(tx, idFault));
}

export async function faultList(ctx: DomainContext): Promise<FaultView[]> {
  return (await listFaults(ctx.database.db)).map(faultView);
}

/** Removes one fault (404 when there is none with that id) or, without an id, all of them. */
export async function removeFaults(ctx: DomainContext, idFault?: number): Promise<number> {
  const n = await ctx.database.transaction((tx) => deleteFaults(tx, idFault));
  if (idFault !== undefined && n === 0) {
    throw new ApiError(404, `There is no fault ${idFault}.`, { field: 'idFault' });
  }
  return n;
}

/** Who a request acts for, as authentication found it (none on public routes). */
export interface FaultRequester {
  idApp: number;
  idUser: number | null;
}

/**
 * A fault ready to be matched against requests: its pattern compiled, and its own random sequence
 * (seeded when the fault has a seed, so a test sees the same hits on every run).
 */
export interface FaultRule {
  fault: Fault;
  /** Method, path (relative to the API prefix), who asks and the marketplace time. */
  matches(method: string, path: string, requester: FaultRequester | undefined, now: number): boolean;
  /** Whether this matching request is hit (draws from the fault's sequence unless the rate is 1). */
  hits(): boolean;
  /** A counted fault whose count this process saw run out: it never applies again. */
  spent: boolean;
}

/**
 * `*` stands for any characters within one path segment, `**` for any characters across segments,
 * `:name` for one segment (as the guides write route parameters); anything else is literal.
 */
export function pathPattern(path: string): RegExp {
  let re = '';
  for (let i = 0; i < path.length;) {
    if (path.startsWith('**', i)) {
      re += '.*';
      i += 2;
    } else if (path[i] === '*') {
      re += '[^/]*';
      i += 1;
    } else if (path[i] === ':' && (i === 0 || path[i - 1] === '/') && /[A-Za-z]/.test(path[i + 1] ?? '')) {
      re += '[^/]+';
      i += 1;
      while (i < path.length && /\w/.test(path[i]!)) i++;
    } else {
      re += path[i]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  return new RegExp(`^${re}/?$`);
}

export function faultRule(fault: Fault): FaultRule {
  const re = pathPattern(fault.path);
  const random = fault.seed === null ? Math.random : mulberry32(Number(fault.seed));
  const expiresAt = fault.expiresAt === null ? Infinity : Number(fault.expiresAt);
  const rule: FaultRule = {
    fault,
    spent: fault.remaining !== null && fault.remaining <= 0,
    matches: (method, path, requester, now) =>
      !rule.spent &&
      (fault.method === null || fault.method === method) &&
      now < expiresAt &&
      (fault.idApp === null || requester?.idApp === fault.idApp) &&
      (fault.idUser === null || (requester !== undefined && requester.idUser === fault.idUser)) &&
      re.test(path),
    hits: () => fault.rate >= 1 || random() < fault.rate,
  };
  return rule;
}
