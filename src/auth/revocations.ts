import { ApiError } from '../errors.js';
import type { Database } from '../store/db.js';
import { readCredentialsVersion } from '../store/apps.js';

/**
 * The credentials version (`readCredentialsVersion`), read for the requests that arrive in one
 * turn of the event loop by one query, so knowing whether anything was revoked anywhere costs a
 * request almost nothing. A request's read starts after it arrived: a revocation committed before
 * the request was sent is always seen. Cached credentials checked at an older version are checked
 * against their rows again (`authenticate.ts`).
 */
export class CredentialsVersion {
  /** The read the requests of this turn wait for, one promise shared by all of them. */
  private pending: Promise<string> | undefined;

  constructor(private readonly database: Database) {}

  current(): Promise<string> {
    this.pending ??= new Promise((resolve, reject) => {
      setImmediate(() => {
        // Requests arriving from now on wait for the next read.
        this.pending = undefined;
        readCredentialsVersion(this.database.db).then(resolve, () =>
          reject(
            new ApiError(
              503,
              'The database is unreachable, so requests cannot be verified. Try again shortly.',
            ),
          ),
        );
      });
    });
    return this.pending;
  }
}
