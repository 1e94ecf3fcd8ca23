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
  /** The status every answer must have, or the run is void (a fast error path is not a result). */
  expectStatus: number;
}
