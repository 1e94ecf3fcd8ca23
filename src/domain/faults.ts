import { parseDuration } from '../clock.js';
import { ApiError, badRequest } from '../errors.js';
import { formatTimestamp } from '../format.js';
import { deleteFaults, insertFault, listFaults } from '../store/faults.js';
import type { Fault } from '../store/schema.js';
import type { DomainContext } from './context.js';

/**
 * Injected faults (sandbox): the failures client programs meet on the live service and must
 * survive, reproduced on request so a client's test suite can make them happen again. A fault names
 * a path pattern (relative to `/ws/v2.0`, as the API's documentation writes paths), optionally a
 * method, and what happens to a matching request: an error answer as the real condition gives it,
 * a delay, or a connection closed without an answer; each with a probability.
 */

/** The statuses a fault can answer with, each as the live service words it (src/http/faults.ts). */
export const FAULT_STATUSES = [400, 429, 500, 503] as const;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
const MAX_LATENCY_MS = 5 * 60_000;
const MAX_PATH = 500;

export interface FaultInput {
  path: string;
  method?: string;
  status?: string | number;
  description?: string;
  rate?: string | number;
  latency?: string;
  drop?: boolean;
  seed?: string | number;
}

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
  createdAt: string;
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
  seed: f.seed,
  createdAt: formatTimestamp(f.createdAt),
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

function parseInput(input: FaultInput) {
  const path = normalizePath(input.path ?? '');
  if (!path.startsWith('/') || path.length > MAX_PATH || NOT_IN_PATH.test(path)) {
    throw badRequest(
      `The path must start with "/", be relative to /ws/v2.0 (e.g. /articles/*), hold no spaces, query or control characters, and be at most ${MAX_PATH} characters.`,
      { field: 'path' },
    );
  }
  let method: string | null = null;
  if (input.method !== undefined && input.method !== '') {
    method = input.method.trim().toUpperCase();
    if (!(METHODS as readonly string[]).includes(method)) {
      throw badRequest(`The method must be one of ${METHODS.join(', ')}.`, { field: 'method' });
    }
  }
  let status: number | null = null;
  if (input.status !== undefined && input.status !== '') {
    status = Number(input.status);
    if (!(FAULT_STATUSES as readonly number[]).includes(status)) {
      throw badRequest(`The status must be one of ${FAULT_STATUSES.join(', ')}.`, { field: 'status' });
    }
  }
  const drop = input.drop === true;
  let latencyMs = 0;
  if (input.latency !== undefined && input.latency !== '') {
    try {
      latencyMs = parseDuration(input.latency);
    } catch (err) {
      throw badRequest(`The latency is ${(err as Error).message}.`, { field: 'latency' });
    }
    if (latencyMs > MAX_LATENCY_MS) {
      throw badRequest('The latency may be at most 5m.', { field: 'latency' });
    }
  }
  if (drop && status !== null) {
    throw badRequest('A dropped connection has no status: give --drop or --status, not both.', {
      field: 'drop',
    });
  }
  if (!drop && status === null && latencyMs === 0) {
    throw badRequest('A fault needs a status, a latency or --drop.', { field: 'status' });
  }
  let rate = 1;
  if (input.rate !== undefined && input.rate !== '') {
    rate = Number(input.rate);
    if (!Number.isFinite(rate) || rate <= 0 || rate > 1) {
      throw badRequest('The rate is the share of matching requests the fault hits: above 0, at most 1.', {
        field: 'rate',
      });
    }
  }
  let seed: number | null = null;
  if (input.seed !== undefined && input.seed !== '') {
    seed = Number(input.seed);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw badRequest('The seed is an integer from 0 to 4294967295.', { field: 'seed' });
    }
  }
  const description = input.description?.trim() || null;
  if (description !== null && (description.length > 500 || NOT_IN_TEXT.test(description))) {
    throw badRequest('The description is at most 500 characters of text.', { field: 'description' });
  }
  if (description !== null && status === null) {
    throw badRequest('A description goes with a status (it is the answer’s mkm_error_description).', {
      field: 'description',
    });
  }
  return { method, path, status, description, rate, latencyMs, drop: drop ? 1 : 0, seed };
}

export async function addFault(ctx: DomainContext, input: FaultInput): Promise<FaultView> {
  const values = parseInput(input);
  const fault = await ctx.database.transaction((tx) =>
    insertFault(tx, { ...values, createdAt: ctx.clock.now() }),
  );
  return faultView(fault);
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

/**
 * A fault ready to be matched against requests: its pattern compiled, and its own random sequence
 * (seeded when the fault has a seed, so a test sees the same hits on every run).
 */
export interface FaultRule {
  fault: Fault;
  matches(method: string, path: string): boolean;
  /** Whether this matching request is hit (draws from the fault's sequence unless the rate is 1). */
  hits(): boolean;
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

/** mulberry32: small, fast and good enough to spread hits; one sequence per fault. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function faultRule(fault: Fault): FaultRule {
  const re = pathPattern(fault.path);
  const random = fault.seed === null ? Math.random : mulberry32(fault.seed);
  return {
    fault,
    matches: (method, path) => (fault.method === null || fault.method === method) && re.test(path),
    hits: () => fault.rate >= 1 || random() < fault.rate,
  };
}
