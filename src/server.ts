import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { describeApps } from './auth/apps.js';
import type { Config } from './config.js';
import { startReservationSweeper } from './domain/cart.js';
import { startPriceGuideJob } from './domain/priceguide.js';
import { seedDemo } from './seed/index.js';
import { createServices, type Services } from './services.js';
import { countUsers, findUserByUsername } from './store/users.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts cardbazaar: migrate, load the demo data into an empty sandbox database, listen, deliver
 * events. `stop` lets in-flight requests finish, then closes the database.
 */
export async function startServer(
  config: Config,
  out: (line: string) => void = console.log,
): Promise<RunningServer> {
  const services = await createServices(config);
  try {
    if (config.mode === 'sandbox' && config.demoData) {
      const empty = (await countUsers(services.database.db)) === 0;
      if (empty) {
        out('Empty database: loading the demo data…');
        await seedDemo(services, { out });
      }
    }
    const app = await buildApp(services);
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    services.events.start();
    const stopSweeper = startReservationSweeper(services);
    const stopPriceGuide = startPriceGuideJob(services, config.priceGuideMinutes, (err) =>
      services.log.error({ err }, 'price guide refresh failed'),
    );
    if (config.mode === 'sandbox' && config.demoData) await printDemoCredentials(services, url, out);
    out(`cardbazaar (${config.mode}) listening on ${url}/ws/v2.0 — data in ${services.database.location}`);

    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        await app.close();
        await stopSweeper();
        await stopPriceGuide();
        await services.close();
      })();
      return stopping;
    };
    return { app, services, url, stop };
  } catch (err) {
    await services.close();
    throw err;
  }
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
  lines.push(
    `  Try it: npx cardbazaar request GET /account --user demo-seller --json   (base ${url}/ws/v2.0)`,
    '',
  );
  out(lines.join('\n'));
}

/** Runs until SIGINT/SIGTERM, then stops cleanly. */
export async function serveForever(config: Config): Promise<void> {
  const server = await startServer(config);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      console.log(`${signal}: finishing in-flight requests and closing the database…`);
      server
        .stop()
        .then(() => resolve())
        .catch((err) => {
          console.error(err);
          process.exitCode = 1;
          resolve();
        });
    };
    process.once('SIGINT', () => onSignal('SIGINT'));
    process.once('SIGTERM', () => onSignal('SIGTERM'));
  });
}
