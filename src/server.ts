import { controlTokenOf } from './auth/control-token.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { describeApps } from './auth/apps.js';
import cluster from 'node:cluster';
import pino from 'pino';
import { type Config, ConfigError, SETTINGS } from './config.js';
import { startReservationSweeper } from './domain/cart.js';
import { startPriceGuideJob } from './domain/priceguide.js';
import { type Scenario, startServerMarket } from './domain/market/index.js';
import { DEMO_PASSWORD, ensureDemoPasswords } from './seed/demo-users.js';
import { seedDemo } from './seed/index.js';
import { saveBaseline } from './domain/snapshots.js';
import { sandboxDocument } from './sandbox/document.js';
import type { SandboxDocument } from './sandbox/types.js';
import { createServices, type ServiceOverrides, type Services } from './services.js';
import { listenTls, type TlsListener } from './http/tls-listener.js';
import { loadServerCertificate, tlsDirOf } from './sandbox/tls-files.js';
import { countUsers, findUserByUsername } from './store/users.js';
import { serveWorkers } from './workers.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  /** `https://host:port` of the https listener (TLS_PORT), when there is one. */
  httpsUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * Starts cardbazaar: migrate, load the demo data into an empty sandbox database, listen, deliver
 * events. `stop` lets in-flight requests finish, then closes the database.
 */
export async function startServer(
  config: Config,
  out: (line: string) => void = console.log,
  overrides: ServiceOverrides = {},
  /** One of `serve --workers N`'s processes (src/workers.ts), or undefined: the only one. */
  worker?: WorkerRole,
): Promise<RunningServer> {
  // Read before anything starts, so a missing certificate stops the start with what to do.
  let tlsCredentials: { key: string; cert: string } | undefined;
  if (config.tlsPort !== undefined) {
    if (config.mode !== 'sandbox') throw new ConfigError('TLS_PORT is for the sandbox only');
    tlsCredentials = loadServerCertificate(tlsDirOf(config));
  }
  const services = await createServices(config, overrides);
  try {
    // The primary of several workers loaded the demo data before starting them.
    if (!worker) await prepareSandbox(services, out);
    const app = await buildApp(services);
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const hostInUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${hostInUrl}:${port}`;
    let tls: TlsListener | undefined;
    if (tlsCredentials) {
      try {
        tls = await listenTls(app, config, tlsCredentials, config.tlsPort!);
      } catch (err) {
        await app.close();
        throw err;
      }
    }
    const httpsUrl = tls ? `https://${hostInUrl}:${tls.port}` : undefined;
    // Jobs that one process does for all: the first worker (a replacement of it takes them over).
    // Event and webhook delivery and the reservation sweep claim their rows, so every worker runs them.
    const first = !worker || worker.index === 0;
    if (first) services.database.checkpointInBackground?.();
    services.events.start();
    services.webhooks.start();
    const stopSweeper = startReservationSweeper(services);
    const stopPriceGuide = first
      ? startPriceGuideJob(services, config.priceGuideMinutes, (err) =>
          services.log.error({ err }, 'price guide refresh failed'),
        )
      : async () => {};
    if (worker) {
      worker.listening(url, httpsUrl);
      return { app, services, url, httpsUrl, stop: stopper(app, services, stopSweeper, stopPriceGuide, tls) };
    }
    if (config.mode === 'sandbox' && config.demoData) await printDemoCredentials(services, url, out);
    out(
      `cardbazaar (${config.mode}) listening on ${url}/ws/v2.0 (website: ${url}/) — data in ${services.database.location}`,
    );
    if (config.mode === 'sandbox') out(controlApiLine(services, url));
    if (httpsUrl) {
      out(
        `  and on ${httpsUrl}/ws/v2.0 with the certificate in ${tlsDirOf(config)} (clients trust its ca.pem: \`cardbazaar tls trust\`)`,
      );
    }

    return { app, services, url, httpsUrl, stop: stopper(app, services, stopSweeper, stopPriceGuide, tls) };
  } catch (err) {
    await services.close();
    throw err;
  }
}

/** What a worker process of `serve --workers N` is told and tells its primary. */
export interface WorkerRole {
  /** 0 to N-1; a worker started in place of one that died takes its index. */
  index: number;
  /** Called once the worker listens (the primary prints the banner when all have); `httpsUrl` with TLS_PORT. */
  listening(url: string, httpsUrl: string | undefined): void;
}

function stopper(
  app: FastifyInstance,
  services: Services,
  stopSweeper: () => Promise<void>,
  stopPriceGuide: () => Promise<void>,
  tls: TlsListener | undefined,
): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      await Promise.all([tls?.close(), app.close()]);
      await stopSweeper();
      await stopPriceGuide();
      await services.close();
    })();
    return stopping;
  };
}

/**
 * Loads the demo data into an empty sandbox database and prints the banner's credentials: what
 * `startServer` does before listening, done once by the primary of several workers.
 */
export async function prepareSandbox(services: Services, out: (line: string) => void): Promise<void> {
  const { config } = services;
  if (config.mode !== 'sandbox') return;
  let seeded = false;
  if (config.demoData && (await countUsers(services.database.db)) === 0) {
    out('Empty database: loading the demo data…');
    await seedDemo(services, { out });
    seeded = true;
  }
  // What `POST /_cardbazaar/reset` goes back to: this new world, or the one a first server found.
  await saveBaseline(services, seeded);
}

export { printDemoCredentials };

/** The banner's line for the sandbox control API: where, and the token (docs/testing-your-client.md). */
export function controlApiLine(services: Services, url: string): string {
  return `  Control API (clock, faults, snapshots, fixtures, events, reset): ${url}/_cardbazaar/ with "Authorization: Bearer ${controlTokenOf(services.config, services.serverKey)}"`;
}

async function printDemoCredentials(
  services: Services,
  url: string,
  out: (line: string) => void,
): Promise<void> {
  const lines: string[] = [
    '',
    'Demo credentials (sandbox; derived from the server key, shown on every start):',
  ];
  const withPasswords = await ensureDemoPasswords(services);
  if (withPasswords.length > 0) {
    lines.push(`  Website: ${url}/login as ${withPasswords.join(', ')} with the password "${DEMO_PASSWORD}"`);
  }
  for (const username of ['demo-seller', 'demo-buyer', 'demo-powerseller']) {
    const user = await findUserByUsername(services.database.db, username);
    if (!user) continue;
    for (const app of await describeApps(services, user.idUser)) {
      if (app.revoked) continue;
      lines.push(`  ${username} — ${app.kind} app "${app.name}"`);
      lines.push(`    appToken=${app.appToken}  appSecret=${app.appSecret}`);
      for (const t of app.accessTokens) {
        const forUser = t.idUser === user.idUser ? '' : ` (acting for user ${t.idUser})`;
        lines.push(`    accessToken=${t.token}  accessTokenSecret=${t.secret}${forUser}`);
      }
    }
  }
  const tryIt = tryItCommand(services.config, url);
  lines.push(
    tryIt
      ? `  Try it: ${tryIt}   (base ${url}/ws/v2.0)`
      : `  The database is in memory, so no other process can read these apps: sign requests to ${url}/ws/v2.0 with the credentials above.`,
    '',
  );
  out(lines.join('\n'));
}

/**
 * The banner's example request, with what `cardbazaar request` run from another shell needs to
 * reach this server as the demo seller: this database (the apps, and the generated key beside it)
 * and this address, each only when it is not the default. Secrets are not printed: a configured
 * server key, or a database URL with a password, is read from its environment variable instead.
 */
export function tryItCommand(config: Config, url: string): string | undefined {
  // `cardbazaar request` opens the database to find the demo apps: an in-memory one is this
  // process's alone.
  if (config.databaseUrl === ':memory:' || config.databaseUrl === 'sqlite::memory:') return undefined;
  const global: string[] = [];
  if (config.databaseUrl !== defaultOf('databaseUrl')) {
    const hasPassword = /:[^:@/]*@/.test(config.databaseUrl);
    global.push('--database-url', hasPassword ? '"$DATABASE_URL"' : shellWord(config.databaseUrl));
  }
  if (config.secretKey !== undefined) global.push('--secret-key', '"$SECRET_KEY"');
  const request = ['request', 'GET', '/account', '--user', 'demo-seller', '--json'];
  const base = config.publicBaseUrl ?? url;
  if (base !== `http://${defaultOf('host')}:${defaultOf('port')}`)
    request.push('--base-url', shellWord(base));
  return ['npx', 'cardbazaar', ...global, ...request].join(' ');
}

function defaultOf(key: keyof Config): string | undefined {
  return SETTINGS.find((s) => s.key === key)?.default;
}

/** A word a POSIX shell reads back as it is. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export interface ServeOptions {
  /** Print the sandbox document as one JSON line on stdout once listening; everything else goes to stderr. */
  printCredentials?: 'json';
  /** Stop when standard input ends (a parent process that dies closes the pipe). */
  exitOnStdinClose?: boolean;
  /** `serve --market NAME`: a living market runs beside the requests (sandbox only). */
  market?: { scenario: Scenario; seed: string; days: number; speed: number };
}

/** Runs until SIGINT/SIGTERM (or, if asked, standard input closing), then stops cleanly. */
export async function serveForever(config: Config, options: ServeOptions = {}): Promise<void> {
  if (config.workers > 1 || cluster.isWorker) return serveWorkers(config, options);
  const json = options.printCredentials === 'json';
  if (json && config.mode !== 'sandbox') {
    throw new ConfigError(
      '--print-credentials is for the sandbox only: production never prints credentials.',
    );
  }
  // With the document on stdout, stdout carries nothing else: a parent reads it with JSON.parse.
  const say = json ? (line: string) => void process.stderr.write(`${line}\n`) : console.log;
  const server = await startServer(
    config,
    say,
    json ? { log: pino({ level: config.logLevel }, pino.destination(2)) } : {},
  );
  if (json) {
    const document: SandboxDocument = await sandboxDocument(
      server.services,
      server.url,
      server.services.database.location,
      controlTokenOf(config, server.services.serverKey),
      server.httpsUrl,
    );
    process.stdout.write(`${JSON.stringify(document)}\n`);
  }
  let market: ReturnType<typeof startServerMarket> | undefined;
  if (options.market) {
    if (config.mode !== 'sandbox') throw new ConfigError('--market is for the sandbox only.');
    const m = options.market;
    say(`Market ${m.scenario.name}: seed ${m.seed}, ${m.days} days at ${m.speed}× real time`);
    market = startServerMarket(server.services, m, (err) =>
      server.services.log.error({ err }, 'the market stopped on an error'),
    );
    void market.done.then((summary) => {
      if (summary)
        say(`Market ${summary.scenario} ended: ${summary.actions} actions over ${summary.days} days`);
    });
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (why: string) => {
      if (stopping) return;
      stopping = true;
      say(`${why}: finishing in-flight requests and closing the database…`);
      // Reading stdin holds the event loop open; let go of it so the process can end.
      if (options.exitOnStdinClose) process.stdin.destroy();
      Promise.resolve(market?.stop())
        .then(() => server.stop())
        .then(() => resolve())
        .catch((err) => {
          console.error(err);
          process.exitCode = 1;
          resolve();
        });
    };
    process.once('SIGINT', () => onSignal('SIGINT'));
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    if (options.exitOnStdinClose) {
      process.stdin.on('end', () => onSignal('standard input closed'));
      process.stdin.on('error', () => onSignal('standard input closed'));
      process.stdin.resume();
    }
  });
}
