import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from '../src/http/routing.js';
import { registerRoutes } from '../src/routes/index.js';
import type { Services } from '../src/services.js';

/**
 * Records, when `CARDBAZAAR_PARITY_RECORD` names a folder, which API route each test request
 * reached, in which format, with which status, and whether a conformance suite held its body to
 * the entity's shape (`getBoth`/`writeBoth`). `scripts/parity/generate.ts` turns the recording into
 * `docs/parity.md`. Off (one environment read) otherwise.
 */
const DIR = process.env.CARDBAZAAR_PARITY_RECORD;
const FILE = DIR ? join(DIR, `${process.pid}.jsonl`) : undefined;
if (DIR) mkdirSync(DIR, { recursive: true });

export interface ParityRecord {
  route: string;
  format: 'xml' | 'json';
  status: number;
  pinned: boolean;
}

interface Pattern {
  method: string;
  segments: string[];
  key: string;
  /** More static segments first: `/products/find` before `/products/:idProduct`, as the router does. */
  statics: number;
}
let patterns: Pattern[] | undefined;

function routesOf(services: Services): Pattern[] {
  if (!patterns) {
    const router = new Router();
    registerRoutes(router, services);
    patterns = router
      .routeKeys()
      .map((key) => {
        const [method, path] = key.split(' ') as [string, string];
        const segments = path.split('/').slice(1);
        return { method, segments, key, statics: segments.filter((s) => !s.startsWith(':')).length };
      })
      .sort((a, b) => b.statics - a.statics);
  }
  return patterns;
}

/** The route key (`GET /stock/:start`) a request path under `/ws/v2.0` reaches, if any. */
export function routeOf(
  services: Services,
  method: string,
  url: string,
): { route: string; format: 'xml' | 'json' } | undefined {
  const m = /^\/ws\/v2\.0(\/output\.(json|xml))?(\/[^?]*)/.exec(url);
  if (!m) return undefined;
  const segments = m[3]!.split('/').slice(1);
  const found = routesOf(services).find(
    (p) =>
      p.method === method &&
      p.segments.length === segments.length &&
      p.segments.every((s, i) => s.startsWith(':') || s === segments[i]),
  );
  return found && { route: found.key, format: m[2] === 'json' ? 'json' : 'xml' };
}

export function recordParity(
  services: Services,
  method: string,
  url: string,
  status: number,
  pinned = false,
): void {
  if (!FILE) return;
  const at = routeOf(services, method, url);
  if (!at) return;
  const record: ParityRecord = { ...at, status, pinned };
  appendFileSync(FILE, `${JSON.stringify(record)}\n`);
}
