import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Copies the SQLite write-ahead log into the database file from a worker thread with a connection
 * of its own, so that the request that happens to cross SQLite's automatic checkpoint threshold
 * does not wait for it. Such a checkpoint copies a thousand pages and waits for two `fsync`s
 * (the log before, the database file after): about 16 ms a checkpoint (1 to 40 ms a `fsync`) on
 * the shared two-core machine, landing in one checkout of every six or seven.
 *
 * Only PASSIVE checkpoints: they never take the writer's lock, so the server's transactions go on
 * beside them (the checkpoint copies what was committed when it started). Durability is SQLite's
 * own: a commit is in the log when it is acknowledged (a killed process loses none), and the log
 * is synced before each checkpoint copies it, as the connection's automatic checkpoint did.
 */

/** The worker's script: CommonJS (an `eval` worker), without the parent's loaders. */
const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('synchronous = NORMAL');
// A checkpoint that finds the database busy skips and comes back later: never a wait.
db.pragma('busy_timeout = 0');
let delay = workerData.minMs;
let last = '';
let timer;
const tick = () => {
  let state = last;
  try {
    const row = db.pragma('wal_checkpoint(PASSIVE)')[0];
    state = row.log + ':' + row.checkpointed;
  } catch {}
  // While the log grows, checkpoints follow it closely; once it stays still they space out.
  delay = state === last ? Math.min(delay * 2, workerData.maxMs) : workerData.minMs;
  last = state;
  timer = setTimeout(tick, delay);
};
timer = setTimeout(tick, delay);
parentPort.on('message', () => {
  clearTimeout(timer);
  try { db.close(); } catch {}
  parentPort.close();
});
`;

/**
 * SQLite's automatic checkpoint threshold on the server's own connection while the worker runs (in
 * pages of 4 KB): a safety net should the worker fall behind, never reached while it keeps up.
 */
export const SAFETY_CHECKPOINT_PAGES = 16_384;

export interface Checkpointer {
  /** Stops the worker and closes its connection. */
  stop(): Promise<void>;
}

/**
 * @param onFailure called if the worker ends on its own (it could not open the file, say): the
 * caller gives its connection SQLite's own checkpoints back.
 * @param minMs the pause between checkpoints while the log grows. A checkpoint copies each page
 * once however many commits rewrote it since the last, and busy writes rewrite the same pages (a
 * checkout dirties some 95, three quarters of them the same leaves of the cart lines' article
 * index every time): at 25 ms the worker copied about 40 pages per sequential checkout and took
 * 0.5–0.65 ms of CPU per checkout (its reads, writes and `fsync`s), at 100 ms 0.24–0.46 ms. The
 * price: the log is synced only by a checkpoint (synchronous = NORMAL), so an OS crash or power cut
 * can lose up to a tenth of a second of commits instead of a fortieth; a killed process loses none.
 */
export function startCheckpointer(
  path: string,
  onFailure: () => void,
  minMs = 100,
  maxMs = 1000,
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(SCRIPT, { eval: true, execArgv: [], workerData: { driver, path, minMs, maxMs } });
  // A background helper: it never keeps the process alive, and its failure (a disk error in a
  // checkpoint) leaves the connection's own checkpoints to do the work.
  worker.unref();
  worker.on('error', () => {});
  let stopping: Promise<void> | undefined;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping) onFailure();
      resolve();
    }),
  );
  return {
    stop() {
      stopping ??= (async () => {
        // Held alive until the worker has closed its connection (or 2 s at most).
        worker.ref();
        worker.postMessage('stop');
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
        await Promise.race([exited, timeout]);
        await worker.terminate();
      })();
      return stopping;
    },
  };
}
