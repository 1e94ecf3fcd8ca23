import type { Clock } from '../clock.js';
import type { Database } from '../store/db.js';

/**
 * What a domain function may use: the store and the marketplace clock. Never a request, a reply or a
 * header: the routes translate those into plain arguments.
 */
export interface DomainContext {
  database: Database;
  clock: Clock;
}

/** The part of a list a paginated read asks for. */
export interface Window {
  offset: number;
  limit: number;
}
