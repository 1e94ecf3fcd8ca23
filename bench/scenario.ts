import type { ClientCredentials } from '../src/auth/client.js';
import type { Services } from '../src/services.js';

/**
 * A benchmark scenario: a request shape to load, and how to prepare the database for it.
 * `prepare` runs once in the harness before the server starts and returns what `request` needs.
 */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to /ws/v2.0, query included. */
  path: string;
  body?: string;
  credentials: ClientCredentials;
  /**
   * A website page instead of an API call: `path` is the site's own (no `/ws/v2.0` prefix) and the
   * request carries this session cookie instead of an OAuth signature.
   */
  page?: { cookie: string };
  /**
   * A call of the sandbox control API instead: `path` is the server's own (`/_cardbazaar/…`) and the
   * request carries this bearer token instead of an OAuth signature.
   */
  control?: { token: string };
  /** The body's media type (default application/xml, the API's). */
  contentType?: string;
}

export interface Scenario<T = unknown> {
  name: string;
  /** What this measures, one line, printed with the result. */
  description: string;
  /**
   * A prepared database file to start from, copied into the run's directory before `prepare` (for
   * data that takes long to build; the scenario caches it).
   */
  database?(): Promise<string>;
  /** Fills the database; the server is started on it afterwards. */
  prepare(services: Services): Promise<T>;
  /** Called for every request (a write scenario may vary the body). */
  request(state: T, i: number): BenchRequest;
  /**
   * The status every answer must have, or the run is void (a fast error path is not a result);
   * several for a sequential scenario that alternates requests (create, then delete).
   */
  expectStatus: number | readonly number[];
  /** Extra environment for the server under test (e.g. a setting switched off for comparison). */
  env?: Record<string, string>;
  /** Extra arguments of `cardbazaar serve` (e.g. `--market FILE --speed 60`). */
  serverArgs?: string[];
  /**
   * Work the server does beside the requests (a living market): the harness waits until it moves
   * before the warm-up, and prints how far it moved over the rounds; a run where it stood still is
   * flagged, as it measured an idle server.
   */
  background?: Background;
  /**
   * A generous upper bound of cardbazaar's requests per second here (default 20,000): how many
   * signed requests to prepare before measuring. Scenarios with large bodies set it low, or the
   * pre-signed request files of wrk would run to gigabytes.
   */
  expectedRps?: number;
  /**
   * For one-shot writes that cannot be replayed: measured as this many sequential requests per
   * round instead of a timed load, and `request(state, i)` gets a new `i` for every request of the
   * run (from 0; -1 for the harness's sample request).
   */
  sequential?: { requests: number };
  /**
   * Sequential scenarios whose requests leave work to the server's background loops (webhook
   * deliveries): called after each of cardbazaar's rounds, it waits until that work is done and
   * says how much of it was done during the round. The harness prints `note` with the round and
   * reports the time per request with `settleMs` added beside the plain figure, so a backlog left
   * to the baseline's round cannot flatter the result.
   */
  afterRound?(state: T): Promise<{ note: string; settleMs: number }>;
}

export interface Background {
  /** How much of that work is done so far, read from the server's database. */
  progress(databaseUrl: string): Promise<{ count: number; note: string }>;
}
