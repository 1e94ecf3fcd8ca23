import type { Command } from 'commander';
import {
  createEndpoint,
  endpointAttempts,
  endpointSecret,
  endpointAttemptsPage,
  listEndpoints,
  ownEndpoint,
  removeEndpoint,
  sendAgain,
  setEndpointEnabled,
  setEndpointStrictOrder,
} from '../domain/webhooks.js';
import type { Services } from '../services.js';
import { listAppsOfUser } from '../store/apps.js';
import type { WebhookEndpoint } from '../store/schema.js';
import { CliError, printJson, reportErrors, userByName, withServices } from './context.js';

/** What the operator sees of an endpoint: everything the profile page shows, the secret included. */
function describeEndpoint(services: Services, e: WebhookEndpoint) {
  return {
    idEndpoint: e.idEndpoint,
    idApp: e.idApp,
    url: e.url,
    kinds: e.kinds === '*' ? ['*'] : e.kinds.split(','),
    enabled: e.enabled === 1,
    secret: endpointSecret(services.serverKey, e),
    failingSince: e.failingSince === null ? null : new Date(e.failingSince).toISOString(),
    disabledAt: e.disabledAt === null ? null : new Date(e.disabledAt).toISOString(),
    strictOrder: e.strictOrder === 1,
  };
}

function endpointId(text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new CliError(`"${text}" is not an endpoint id.`);
  return Number(text);
}

/** `cardbazaar webhook …`: the operator's side of the profile page's webhook endpoints. */
export function registerWebhookCommands(program: Command): void {
  const webhook = program
    .command('webhook')
    .description('Webhook endpoints of apps (docs/api.md, "Events and webhooks").');
  webhook
    .command('create')
    .description("Register an endpoint for a user's app; prints it with its signing secret as JSON.")
    .requiredOption('--user <name>', 'the owner of the app')
    .requiredOption('--url <url>', 'where the events are POSTed')
    .option('--app <idApp>', "which of the user's apps (default: their first live dedicated app)")
    .option('--kinds <list>', 'comma-separated event kinds (default: all)', '*')
    .option('--disabled', 'register it disabled')
    .option(
      '--strict-order',
      'deliver in order: a failing event holds back the later ones until it succeeds or is given up',
    )
    .action(
      reportErrors(
        async (
          opts: {
            user: string;
            url: string;
            app?: string;
            kinds: string;
            disabled?: boolean;
            strictOrder?: boolean;
          },
          cmd: Command,
        ) => {
          await withServices(cmd, async (services) => {
            const user = await userByName(services, opts.user);
            let idApp: number;
            if (opts.app !== undefined) {
              if (!/^\d{1,9}$/.test(opts.app)) throw new CliError(`"${opts.app}" is not an app id.`);
              idApp = Number(opts.app);
            } else {
              const app = (await listAppsOfUser(services.database.db, user.idUser)).find(
                (a) => a.kind === 'dedicated' && a.revokedAt === null,
              );
              if (!app) throw new CliError(`${opts.user} has no live dedicated app: give --app.`);
              idApp = app.idApp;
            }
            const endpoint = await createEndpoint(services, services.webhookSettings, user.idUser, {
              idApp,
              url: opts.url,
              kinds: opts.kinds,
              enabled: opts.disabled !== true,
              strictOrder: opts.strictOrder === true,
            });
            printJson(describeEndpoint(services, endpoint));
          });
        },
      ),
    );
  webhook
    .command('list')
    .description(
      "Print a user's endpoints (with --user) or every endpoint, with secrets and recent attempts, as JSON.",
    )
    .option('--user <name>', 'only this user’s apps')
    .action(
      reportErrors(async (opts: { user?: string }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const endpoints = opts.user
            ? await listEndpoints(services, (await userByName(services, opts.user)).idUser)
            : await services.database.db
                .selectFrom('webhookEndpoints')
                .selectAll()
                .orderBy('idEndpoint')
                .execute();
          const out = [];
          for (const e of endpoints) {
            const attempts = await endpointAttempts(services, null, e.idEndpoint, 5);
            out.push({
              ...describeEndpoint(services, e),
              recentAttempts: attempts.map((a) => ({
                idDelivery: a.idDelivery,
                idEvent: a.idEvent,
                type: a.type,
                at: new Date(a.at).toISOString(),
                status: a.status,
                durationMs: a.durationMs,
                response: a.response,
              })),
            });
          }
          printJson(out);
        });
      }),
    );
  webhook
    .command('delete <idEndpoint>')
    .description('Delete an endpoint with its deliveries and attempts.')
    .action(
      reportErrors(async (id: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const idEndpoint = endpointId(id);
          await ownEndpoint(services, null, idEndpoint);
          await removeEndpoint(services, null, idEndpoint);
          printJson({ deleted: idEndpoint });
        });
      }),
    );
  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    webhook
      .command(`${name} <idEndpoint>`)
      .description(
        enabled
          ? 'Enable an endpoint (its failure streak forgotten): deliveries resume.'
          : 'Disable an endpoint: nothing is sent to it until it is enabled again.',
      )
      .action(
        reportErrors(async (id: string, _opts: unknown, cmd: Command) => {
          await withServices(cmd, async (services) => {
            const idEndpoint = endpointId(id);
            await setEndpointEnabled(services, null, idEndpoint, enabled);
            printJson(describeEndpoint(services, await ownEndpoint(services, null, idEndpoint)));
          });
        }),
      );
  }
  webhook
    .command('resend <idDelivery>')
    .description(
      'Send a delivery again now, with three fresh days of retries (the website\'s "Send again"); the endpoint must be enabled.',
    )
    .action(
      reportErrors(async (id: string, _opts: unknown, cmd: Command) => {
        if (!/^\d{1,9}$/.test(id)) throw new CliError(`"${id}" is not a delivery id.`);
        await withServices(cmd, async (services) => {
          await sendAgain(services, null, Number(id));
          printJson({ requeued: Number(id) });
        });
      }),
    );
  webhook
    .command('deliveries <idEndpoint>')
    .description(
      "Print an endpoint's delivery attempts, newest first, as JSON (with each idDelivery for resend).",
    )
    .option('--limit <n>', 'how many (1 to 100)', '20')
    .option('--start <n>', 'skip this many of the newest', '0')
    .action(
      reportErrors(async (id: string, opts: { limit: string; start: string }, cmd: Command) => {
        if (!/^\d{1,3}$/.test(opts.limit) || Number(opts.limit) < 1 || Number(opts.limit) > 100)
          throw new CliError('--limit is a whole number from 1 to 100.');
        if (!/^\d{1,9}$/.test(opts.start)) throw new CliError('--start is a whole number.');
        await withServices(cmd, async (services) => {
          const { attempts, total } = await endpointAttemptsPage(services, null, endpointId(id), {
            offset: Number(opts.start),
            limit: Number(opts.limit),
          });
          printJson({
            total,
            attempts: attempts.map((a) => ({
              idDelivery: a.idDelivery,
              idEvent: a.idEvent,
              type: a.type,
              at: new Date(a.at).toISOString(),
              status: a.status,
              durationMs: a.durationMs,
              response: a.response,
            })),
          });
        });
      }),
    );
  webhook
    .command('strict-order <idEndpoint> <onOrOff>')
    .description(
      "Turn strict order on or off: on, a failing delivery holds back the endpoint's later ones until it succeeds or is given up.",
    )
    .action(
      reportErrors(async (id: string, value: string, _opts: unknown, cmd: Command) => {
        if (value !== 'on' && value !== 'off') throw new CliError('Say on or off.');
        await withServices(cmd, async (services) => {
          const idEndpoint = endpointId(id);
          await setEndpointStrictOrder(services, null, idEndpoint, value === 'on');
          printJson(describeEndpoint(services, await ownEndpoint(services, null, idEndpoint)));
        });
      }),
    );
}
