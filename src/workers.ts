import { controlTokenOf } from './auth/control-token.js';
import cluster, { type Worker } from 'node:cluster';
import pino from 'pino';
import { type Config, ConfigError } from './config.js';
import { sandboxDocument } from './sandbox/document.js';
import { loadServerCertificate, tlsDirOf } from './sandbox/tls-files.js';
import {
  controlApiLine,
  prepareSandbox,
  printDemoCredentials,
  type ServeOptions,
  startServer,
} from './server.js';
import { createServices } from './services.js';

/**
 * `cardbazaar serve --workers N`: N processes answering on one port (node:cluster: the primary
 * accepts the connections and hands them to the workers in turn). Everything the workers must agree
 * on lives in the database or Redis, never in one process's memory: OAuth nonces, revocations (the
 * credentials version), the request limits (Redis, or the database's `limitCounters` without it),
 * the sandbox's clock, faults and snapshot loads, the outbox and the webhook deliveries (each
 * claimed in a transaction, so one worker sends what another does not). See
 * docs/running-a-marketplace.md, "Several workers".
 *
 * The primary migrates and loads the demo data once, starts the workers, prints the banner when all
 * listen, starts a worker again in place of one that dies, and on SIGINT/SIGTERM (or standard input
 * closing, when asked) tells every worker to finish its requests and stop, then exits.
 */

/** Messages between the primary and a worker. */
type FromWorker = { cardbazaar: 'listening'; url: string; httpsUrl?: string };
type ToWorker = { cardbazaar: 'stop' };

/** A worker that dies this soon after it started, this often in a row, is not started again. */
const EARLY_DEATH_MS = 5000;
const EARLY_DEATHS_TOLERATED = 5;
/** How long the workers have to finish their requests before they are killed. */
const STOP_GRACE_MS = 30_000;

export async function serveWorkers(config: Config, options: ServeOptions): Promise<void> {
  if (cluster.isWorker) return runWorker(config);
  return runPrimary(config, options);
}

async function runWorker(config: Config): Promise<void> {
  const index = Number(process.env.CARDBAZAAR_WORKER_INDEX ?? 0);
  // Logs on stderr: the primary's stdout may carry the credentials document alone.
  const log = pino(
    { level: config.logLevel, base: { worker: index, pid: process.pid } },
    pino.destination(2),
  );
  const server = await startServer(
    config,
    () => {},
    { log },
    {
      index,
      listening: (url, httpsUrl) =>
        process.send?.({ cardbazaar: 'listening', url, httpsUrl } satisfies FromWorker),
    },
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server
      .stop()
      .catch((err: unknown) => {
        log.error({ err }, 'stopping the worker failed');
        process.exitCode = 1;
      })
      .finally(() => process.disconnect?.());
  };
  process.on('message', (m: ToWorker) => {
    if (m?.cardbazaar === 'stop') stop();
  });
  // Ctrl-C reaches every process of the group; the primary's message follows.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // The primary is gone: nobody hands this worker connections any more.
  process.once('disconnect', stop);
}

async function runPrimary(config: Config, options: ServeOptions): Promise<void> {
  const json = options.printCredentials === 'json';
  if (json && config.mode !== 'sandbox') {
    throw new ConfigError(
      '--print-credentials is for the sandbox only: production never prints credentials.',
    );
  }
  const say = json ? (line: string) => void process.stderr.write(`${line}\n`) : console.log;
  // A missing certificate stops the start here, with what to do, rather than in every worker.
  if (config.tlsPort !== undefined) loadServerCertificate(tlsDirOf(config));
  // Migrations and the demo data once, before any worker opens the database.
  const services = await createServices(
    config,
    json ? { log: pino({ level: config.logLevel }, pino.destination(2)) } : {},
  );
  try {
    await prepareSandbox(services, say);
  } catch (err) {
    await services.close();
    throw err;
  }

  const workers = new Map<number, Worker>();
  let stopping = false;
  let earlyDeaths = 0;
  let started!: (url: string) => void;
  let failed!: (err: Error) => void;
  const allListening = new Promise<string>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  const listening = new Set<number>();
  let url = '';
  let httpsUrl: string | undefined;

  const fork = (index: number) => {
    const worker = cluster.fork({ CARDBAZAAR_WORKER_INDEX: String(index) });
    const bornAt = Date.now();
    workers.set(index, worker);
    worker.on('message', (m: FromWorker) => {
      if (m?.cardbazaar !== 'listening') return;
      url = m.url;
      httpsUrl = m.httpsUrl;
      if (listening.has(index)) {
        say(`worker ${index} (pid ${worker.process.pid}) started again`);
        return;
      }
      listening.add(index);
      if (listening.size === config.workers) started(url);
    });
    worker.on('exit', (code, signal) => {
      if (workers.get(index) === worker) workers.delete(index);
      if (stopping) return;
      const why = signal ? `signal ${signal}` : `code ${code}`;
      if (!listening.has(index)) {
        failed(new Error(`worker ${index} exited (${why}) before it listened`));
        return;
      }
      earlyDeaths = Date.now() - bornAt < EARLY_DEATH_MS ? earlyDeaths + 1 : 0;
      if (earlyDeaths > EARLY_DEATHS_TOLERATED) {
        services.log.error({ index, code, signal }, 'workers keep dying at start: stopping');
        process.exitCode = 1;
        void shutdown('workers keep dying');
        return;
      }
      services.log.error(
        { index, workerPid: worker.process.pid, code, signal },
        'worker died: starting another',
      );
      say(`worker ${index} (pid ${worker.process.pid}) exited (${why}): starting another`);
      fork(index);
    });
  };

  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    say(`${why}: the workers finish their in-flight requests; closing the database…`);
    if (options.exitOnStdinClose) process.stdin.destroy();
    const exits = [...workers.values()].map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.isDead()) return resolve();
          w.once('exit', () => resolve());
          try {
            w.send({ cardbazaar: 'stop' } satisfies ToWorker);
          } catch {
            w.process.kill('SIGTERM');
          }
        }),
    );
    const grace = setTimeout(() => {
      for (const w of workers.values()) if (!w.isDead()) w.process.kill('SIGKILL');
    }, STOP_GRACE_MS);
    await Promise.all(exits);
    clearTimeout(grace);
    await services.close().catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
    done();
  };

  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  if (options.exitOnStdinClose) {
    process.stdin.on('end', () => void shutdown('standard input closed'));
    process.stdin.on('error', () => void shutdown('standard input closed'));
    process.stdin.resume();
  }

  for (let i = 0; i < config.workers; i++) fork(i);
  try {
    await allListening;
  } catch (err) {
    await shutdown('a worker failed to start');
    throw err;
  }
  if (json) {
    process.stdout.write(
      `${JSON.stringify(await sandboxDocument(services, url, services.database.location, controlTokenOf(config, services.serverKey), httpsUrl))}\n`,
    );
  } else if (config.mode === 'sandbox' && config.demoData) {
    await printDemoCredentials(services, url, say);
  }
  say(
    `cardbazaar (${config.mode}) listening on ${url}/ws/v2.0 (website: ${url}/) with ${config.workers} workers — data in ${services.database.location}`,
  );
  if (config.mode === 'sandbox') say(controlApiLine(services, url));
  if (httpsUrl)
    say(`  and on ${httpsUrl}/ws/v2.0 (TLS_PORT; clients trust the authority: \`cardbazaar tls trust\`)`);
  await finished;
}
