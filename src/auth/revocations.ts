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
  private waiting: Array<{ resolve: (v: string) => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;

  constructor(private readonly database: Database) {}

  current(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.read());
      }
    });
  }

  private read(): void {
    this.scheduled = false;
    const waiting = this.waiting;
    this.waiting = [];
    readCredentialsVersion(this.database.db).then(
      (version) => {
        for (const w of waiting) w.resolve(version);
      },
      () => {
        const err = new ApiError(
          503,
          'The database is unreachable, so requests cannot be verified. Try again shortly.',
        );
        for (const w of waiting) w.reject(err);
      },
    );
  }
}
