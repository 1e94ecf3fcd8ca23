import type { Redis } from 'ioredis';
import { ApiError } from '../errors.js';
import type { Database } from '../store/db.js';
import { MAX_NONCE_BATCH, type NonceRow, pruneNonces, recordNonces } from '../store/nonces.js';

/**
 * Remembers the OAuth nonces of accepted requests for as long as their timestamp could still pass
 * the window, so a captured request cannot be replayed (RFC 5849 §3.3): not after a restart, not on
 * another instance. In the database by default (every process on it shares them, and a restart
 * forgets nothing); in Redis when REDIS_URL is set.
 */
export interface NonceStore {
  /** Records the nonce and answers whether it had been seen already (atomically). */
  seen(use: NonceRow, windowSeconds: number): Promise<boolean>;
  close(): Promise<void>;
}

const unavailable = (what: string) =>
  new ApiError(503, `${what} is unreachable, so requests cannot be verified. Try again shortly.`);

interface Waiting {
  row: NonceRow;
  resolve: (seen: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Nonces as rows keyed by (timestamp, credentials and nonce): insert-if-absent on the primary key
 * decides, so two instances racing with the same request cannot both accept it. The requests that
 * arrive in one turn of the event loop share one statement (one commit instead of one each: a
 * commit is most of what an insert costs on SQLite), and each is answered only after that commit,
 * so an acknowledged request's nonce survives a killed process. Rows are deleted a minute at a
 * time once their timestamp has left the window, off the request path.
 */
export class DatabaseNonceStore implements NonceStore {
  private pending: Waiting[] = [];
  private scheduled = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pruneTimer: NodeJS.Timeout;
  private pruning: Promise<unknown> | undefined;

  constructor(
    private readonly database: Database,
    private readonly nowMs: () => number,
    windowSeconds: number,
    onPruneError: (err: unknown) => void = () => {},
  ) {
    this.pruneTimer = setInterval(() => {
      this.pruning ??= this.prune(windowSeconds)
        .catch(onPruneError)
        .finally(() => (this.pruning = undefined));
    }, 60_000);
    this.pruneTimer.unref();
  }

  /** Deletes the nonces whose timestamps no request can carry any more. */
  prune(windowSeconds: number): Promise<number> {
    return pruneNonces(this.database.db, Math.floor(this.nowMs() / 1000) - windowSeconds - 1);
  }

  seen(use: NonceRow): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row: use, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length <= MAX_NONCE_BATCH) {
      // One statement: the same nonce twice in it is inserted once, and `recordNonces` answers new
      // for the first only, so no grouping is needed here.
      this.record(
        batch.map((w) => w.row),
        (isNew) => batch.forEach((w, i) => w.resolve(!isNew[i])),
        (err) => batch.forEach((w) => w.reject(err)),
      );
      return;
    }
    // The same nonce twice in one batch: the first decides, any other is a replay of it. Grouped
    // first, so that the copies of a nonce share one statement whatever order the chunks run in.
    const firsts = new Map<string, Waiting[]>();
    for (const w of batch) {
      const key = `${w.row.timestamp} ${w.row.nonceKey}`;
      const same = firsts.get(key);
      if (same) same.push(w);
      else firsts.set(key, [w]);
    }
    const groups = [...firsts.values()];
    for (let i = 0; i < groups.length; i += MAX_NONCE_BATCH) {
      const chunk = groups.slice(i, i + MAX_NONCE_BATCH);
      this.record(
        chunk.map((g) => g[0]!.row),
        (isNew) => chunk.forEach((group, j) => group.forEach((w, k) => w.resolve(!(isNew[j]! && k === 0)))),
        (err) => {
          for (const group of chunk) for (const w of group) w.reject(err);
        },
      );
    }
  }

  private record(rows: NonceRow[], answer: (isNew: boolean[]) => void, fail: (err: ApiError) => void): void {
    const done = recordNonces(this.database.db, rows).then(answer, () => fail(unavailable('The database')));
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    if (this.scheduled) this.flush();
    await Promise.all([...this.inFlight, this.pruning]);
  }
}

export class RedisNonceStore implements NonceStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'cardbazaar:nonce:',
  ) {}

  async seen(use: NonceRow, windowSeconds: number): Promise<boolean> {
    let set: string | null;
    try {
      // Twice the window: a nonce cannot come back with another timestamp either.
      set = await this.redis.set(this.prefix + use.nonceKey, '1', 'PX', windowSeconds * 2000, 'NX');
    } catch {
      // Letting the request through unchecked would allow replays; refusing it is the safe answer.
      throw unavailable('The shared state store (Redis)');
    }
    return set === null;
  }

  async close(): Promise<void> {}
}
