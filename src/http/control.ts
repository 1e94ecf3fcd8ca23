import type { FastifyRequest } from 'fastify';
import { OffsetClock } from '../clock.js';
import { createLimitStore } from '../limits/create-store.js';
import { MemoryLimitStore } from '../limits/memory-store.js';
import { CLOCK_OFFSET_SETTING } from '../services.js';
import { getSetting } from '../store/settings.js';
import { type FaultRule, faultRule } from '../domain/faults.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';
import { type ControlRows, listFaults, readControlRows } from '../store/faults.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The credentials version the sandbox's control rows brought, read after this request arrived. */
    credentialsVersion: string | undefined;
  }
}

/**
 * What the sandbox's operator commands tell every running server through the database they share,
 * so that any number of processes on one SQLite file (or instances on one PostgreSQL) follow a
 * command at once and no server needs an address the command could reach:
 *
 * - the faults (`cardbazaar faults add|delete|clear`): a version row changes with every change, and
 *   the server reloads the table when it sees a new one;
 * - a snapshot load (`cardbazaar snapshot load`): the command first announces it (a row with a
 *   deadline), and requests that arrive meanwhile wait; the restored database carries a new
 *   generation, and the first request to see it resets what the server keeps outside the
 *   database (the limit counts) before any request goes on.
 *
 * The rows are read once for all the requests that arrive in one turn of the event loop (like the
 * credentials version, `src/auth/revocations.ts`), and a request's read starts after it arrived: a
 * command that finished before a request was sent is always seen by it.
 */
export class SandboxControl {
  /**
   * The requests of this turn of the event loop, each called back with the rows read after it
   * arrived (or the error of that read): a function each, no promise.
   */
  private waiting: Array<(rows: ControlRows | undefined, err?: Error) => void> = [];
  /** The callback hooks of this turn, each let through (or handed the error) once the rows are read. */
  private hooks: Array<(err?: Error) => void> = [];
  /** The requests of those hooks, in the same order. */
  private hookRequests: FastifyRequest[] = [];
  private scheduled = false;
  private faultsVersion: string | undefined;
  private generation: string | undefined;
  private reloading: Promise<void> | undefined;
  /** The faults in force, in the order they were added (the first that matches a request applies). */
  rules: FaultRule[] = [];

  constructor(
    private readonly services: Services,
    /** Runs once per restored database, before any request is let through. */
    private readonly onRestored: () => Promise<void>,
  ) {}

  private read(): Promise<ControlRows> {
    return new Promise((resolve, reject) => {
      this.waiting.push((rows, err) => (err ? reject(err) : resolve(rows!)));
      this.schedule();
    });
  }

  private schedule(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const waiting = this.waiting;
    const hooks = this.hooks;
    const hookRequests = this.hookRequests;
    this.waiting = [];
    this.hooks = [];
    this.hookRequests = [];
    const answer = (rows: ControlRows | undefined, err?: Error) => {
      for (const w of waiting) {
        // One request's failure must not leave the others of the batch waiting for ever.
        try {
          w(rows, err);
        } catch (thrown) {
          this.services.log.error({ err: thrown }, 'sandbox control: a waiting request failed');
        }
      }
      for (let i = 0; i < hooks.length; i++) {
        try {
          this.hookAnswer(hooks[i]!, hookRequests[i]!, rows, err);
        } catch (thrown) {
          this.services.log.error({ err: thrown }, 'sandbox control: a waiting request failed');
        }
      }
    };
    readControlRows(this.services.database.db).then(
      (rows) => {
        // A `clock advance` made through another worker (or the CLI) holds from this request on.
        const clock = this.services.clock;
        if (clock instanceof OffsetClock) clock.setOffset(rows.clockOffsetMs);
        answer(rows);
      },
      () =>
        answer(
          undefined,
          new ApiError(
            503,
            'The database is unreachable, so requests cannot be verified. Try again shortly.',
          ),
        ),
    );
  }

  /**
   * `check` for a callback hook: `done` once this server is up to date. When nothing changed (nearly
   * always) the request waits as its own `done` in the batch, with no promise or closure of its own.
   */
  checkThen(request: FastifyRequest, done: (err?: Error) => void): void {
    this.hooks.push(done);
    this.hookRequests.push(request);
    this.schedule();
  }

  private hookAnswer(
    done: (err?: Error) => void,
    request: FastifyRequest,
    rows: ControlRows | undefined,
    err?: Error,
  ): void {
    if (err) return done(err);
    if (
      rows!.restorePendingUntil > this.services.wallClock.now() ||
      rows!.faultsVersion !== this.faultsVersion ||
      rows!.dataGeneration !== this.generation
    ) {
      this.settle(rows!).then(() => done(), done);
      return;
    }
    // Read after the request arrived, as `CredentialsVersion` reads it: authentication takes it
    // instead of a statement of its own (not after a reload above, which may have replaced the data).
    request.credentialsVersion = rows!.credentialsVersion;
    done();
  }

  /** Brings this server up to what the database says, waiting out a snapshot load under way. */
  async check(): Promise<void> {
    await this.settle(await this.read());
  }

  /** `check` from rows already read. */
  private async settle(first: ControlRows): Promise<void> {
    let rows = first;
    // A load announced and not yet done: hold the request until the restored data is in place (the
    // restored database has no announcement) or the announcement expires, should the command have
    // died; so nothing is answered from, or written into, the data being replaced.
    while (rows.restorePendingUntil > this.services.wallClock.now()) {
      await new Promise((r) => setTimeout(r, 10));
      rows = await this.read();
    }
    if (rows.faultsVersion !== this.faultsVersion || rows.dataGeneration !== this.generation) {
      await this.sync(rows);
    }
  }

  private sync(rows: ControlRows): Promise<void> {
    // One reload at a time; requests that arrive meanwhile wait for it.
    this.reloading ??= (async () => {
      try {
        if (this.generation !== undefined && rows.dataGeneration !== this.generation) {
          await this.onRestored();
          this.services.log.info({ generation: rows.dataGeneration }, 'snapshot loaded: state reset');
        }
        if (rows.faultsVersion !== this.faultsVersion) {
          const faults = await listFaults(this.services.database.db);
          // A fault that stays keeps its random sequence: adding another does not restart it.
          const old = new Map(this.rules.map((r) => [r.fault.idFault, r]));
          this.rules = faults.map((f) => {
            const kept = old.get(f.idFault);
            return kept && kept.fault.createdAt === f.createdAt ? kept : faultRule(f);
          });
        }
        this.generation = rows.dataGeneration;
        this.faultsVersion = rows.faultsVersion;
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }
}

/**
 * What a server keeps outside the database and must forget when a snapshot replaces the data: the
 * limit counts (in this process's memory; with REDIS_URL they are shared and stay: `limits reset`
 * clears a user's), and the clock offset, followed at once instead of within a second. Cached
 * credentials are checked again by themselves: a load gives the restored data a new credentials
 * version. OAuth nonces are rows of the restored data, which a load empties.
 */
export async function resetAfterRestore(services: Services): Promise<void> {
  if (services.limits instanceof MemoryLimitStore) {
    const old = services.limits;
    services.limits = createLimitStore(services.config, undefined, services.wallClock, services.database);
    await old.close().catch(() => {});
  }
  if (services.clock instanceof OffsetClock) {
    services.clock.setOffset(Number((await getSetting(services.database.db, CLOCK_OFFSET_SETTING)) ?? 0));
  }
}
