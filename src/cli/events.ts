import type { Command } from 'commander';
import { exportBuildsSettled, requestExport } from '../domain/exports.js';
import { setTrackingNumber } from '../domain/orders.js';
import { simulatePurchase } from '../domain/simulate.js';
import { sendSystemMessage } from '../domain/system-messages.js';
import { EVENT_KIND_NAMES, EVENT_KINDS, isEventKind, readEventFeed } from '../domain/user-events.js';
import { endpointSecret, postJson, SIGNATURE_HEADER, signatureHeader } from '../domain/webhooks.js';
import { systemLookup } from '../domain/webhook-targets.js';
import { mapEvent } from '../mappers/event.js';
import type { Services } from '../services.js';
import type { UserEvent } from '../store/schema.js';
import { latestUserEventId } from '../store/user-events.js';
import { CliError, printJson, reportErrors, userByName, withServices } from './context.js';

type EventTree = ReturnType<typeof mapEvent>;

/** One line for a terminal: time, id, kind, and what changed. */
export function eventLine(e: EventTree): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the data differs by kind; only a few fields are read
  const d = e.data as Record<string, any>;
  let what = '';
  if (d?.order)
    what = `order ${d.order.idOrder} ${d.previousState ? `${d.previousState} → ` : ''}${d.order.state?.state ?? ''}`;
  else if (d?.message) what = `from ${d.partner?.username ?? '?'}: ${String(d.message.text).slice(0, 60)}`;
  else if (d?.export) what = `export ${d.export.idRequest} ${d.export.status}`;
  else if (d?.article)
    what = `article ${d.article.idArticle} ×${d.count ?? d.article.count ?? ''}${d.idOrder ? ` in order ${d.idOrder}` : ''}`;
  return `${e.created}  #${e.idEvent}  ${e.type.padEnd(28)} ${what}`.trimEnd();
}

/** The secret `events listen --forward-to` signs with: one per user, stable, printed at start. */
export function listenSecret(services: Services, idUser: number): string {
  return endpointSecret(services.serverKey, { idEndpoint: 0, salt: `listen:${idUser}` });
}

async function forward(services: Services, url: string, secret: string, e: EventTree): Promise<string> {
  const body = JSON.stringify(e);
  const unix = Math.floor(services.wallClock.now() / 1000);
  const r = await postJson(
    url,
    body,
    {
      'Content-Type': 'application/json; charset=utf-8',
      'User-Agent': 'cardbazaar-events-listen/1',
      [SIGNATURE_HEADER]: signatureHeader(secret, unix, body),
      'Cardbazaar-Event-Id': String(e.idEvent),
      'Cardbazaar-Event-Type': e.type,
    },
    services.config.webhookTimeoutMs,
    // The operator's own command, forwarding to a receiver of their choosing (usually this machine).
    { allowPrivate: true, lookup: systemLookup },
  );
  return r.status === null ? `no answer (${r.detail ?? r.response})` : String(r.status);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sandbox: makes the marketplace produce an event of this kind for the user, for real. */
async function trigger(services: Services, kind: string, username: string): Promise<void> {
  const user = await userByName(services, username);
  switch (kind) {
    case EVENT_KINDS.messageReceived:
      await services.database.transaction((tx) =>
        sendSystemMessage(
          tx,
          services.clock.now(),
          user.idUser,
          'A test message from `cardbazaar events trigger`.',
        ),
      );
      return;
    case EVENT_KINDS.orderStateChanged:
    case EVENT_KINDS.articleReserved:
    case EVENT_KINDS.articleSold:
      await simulatePurchase(services, username, 1, false);
      return;
    case EVENT_KINDS.orderTrackingNumberSet: {
      const { orders } = await simulatePurchase(services, username, 1, true);
      await setTrackingNumber(services, user.idUser, orders[0]!.order.idOrder, `TEST-${Date.now()}`);
      return;
    }
    case EVENT_KINDS.exportReady:
      await requestExport(services, user.idUser, { type: 'stock', resourceId: user.idUser });
      await services.events.deliverPending();
      await exportBuildsSettled();
      return;
    default:
      throw new CliError(
        `${kind} cannot be triggered from the command line (it needs a counterpart's action); triggerable: ${TRIGGERABLE.join(', ')}.`,
      );
  }
}

const TRIGGERABLE = [
  EVENT_KINDS.messageReceived,
  EVENT_KINDS.orderStateChanged,
  EVENT_KINDS.articleReserved,
  EVENT_KINDS.articleSold,
  EVENT_KINDS.orderTrackingNumberSet,
  EVENT_KINDS.exportReady,
];

/** `cardbazaar events listen` and `events trigger` (docs/api.md, "Events and webhooks"). */
export function registerEventCommands(program: Command): void {
  const events = program
    .command('events')
    .description('Follow and produce public events (docs/api.md, "Events and webhooks").');
  events
    .command('listen')
    .description(
      "Follow a user's events live: one line each (JSON with --json), or forward each to a local URL signed as a webhook would be.",
    )
    .requiredOption('--user <name>', 'whose events')
    .option('--forward-to <url>', 'POST each event here, signed with the secret printed at start')
    .option('--json', 'print each event as one line of JSON')
    .option('--since <idEvent>', 'start after this event id (default: only new events)')
    .option('--max-events <n>', 'stop after this many events (scripts, tests)')
    .action(
      reportErrors(
        async (
          opts: { user: string; forwardTo?: string; json?: boolean; since?: string; maxEvents?: string },
          cmd: Command,
        ) => {
          for (const [name, v] of [
            ['--since', opts.since],
            ['--max-events', opts.maxEvents],
          ] as const) {
            if (v !== undefined && !/^\d{1,9}$/.test(v))
              throw new CliError(`${name} must be a whole number.`);
          }
          if (opts.forwardTo !== undefined && !/^https?:\/\//.test(opts.forwardTo)) {
            throw new CliError('--forward-to must be an http:// or https:// URL.');
          }
          await withServices(cmd, async (services) => {
            const user = await userByName(services, opts.user);
            const secret = listenSecret(services, user.idUser);
            let since =
              opts.since !== undefined
                ? Number(opts.since)
                : await latestUserEventId(services.database.db, user.idUser);
            const max = opts.maxEvents !== undefined ? Number(opts.maxEvents) : Infinity;
            console.error(
              `Listening to ${user.username}'s events after #${since}${opts.forwardTo ? `, forwarding to ${opts.forwardTo} signed with ${secret}` : ''} (Ctrl-C stops).`,
            );
            let stopped = false;
            const stop = () => {
              stopped = true;
            };
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
            let seen = 0;
            try {
              while (!stopped && seen < max) {
                const { events: page } = await readEventFeed(services, user.idUser, since, 100);
                for (const row of page as UserEvent[]) {
                  const e = mapEvent(row);
                  since = row.idEvent;
                  const line = opts.json ? JSON.stringify(e) : eventLine(e);
                  if (opts.forwardTo)
                    console.log(`${line}  → ${await forward(services, opts.forwardTo, secret, e)}`);
                  else console.log(line);
                  if (++seen >= max) break;
                }
                if (page.length === 0) await sleep(250);
              }
            } finally {
              process.off('SIGINT', stop);
              process.off('SIGTERM', stop);
            }
          });
        },
      ),
    );
  events
    .command('trigger <kind>')
    .description(
      `Sandbox: make the marketplace produce an event for real (e.g. order.stateChanged through simulate purchase) and print it. Kinds: ${TRIGGERABLE.join(', ')}.`,
    )
    .requiredOption(
      '--user <name>',
      'the user the event concerns (for orders and articles: the seller, whose articles are bought)',
    )
    .option('--json', 'print the events as JSON')
    .action(
      reportErrors(async (kind: string, opts: { user: string; json?: boolean }, cmd: Command) => {
        if (!isEventKind(kind))
          throw new CliError(`Unknown event kind "${kind}" (known: ${EVENT_KIND_NAMES.join(', ')}).`);
        await withServices(cmd, async (services) => {
          if (services.config.mode === 'production') {
            throw new CliError('events trigger is a sandbox helper: it is not available in production.');
          }
          const user = await userByName(services, opts.user);
          const since = await latestUserEventId(services.database.db, user.idUser);
          await trigger(services, kind, opts.user);
          // Derive the public events here rather than wait for a server to: the outbox claim makes
          // sure each is derived once, whichever process gets it.
          await services.events.deliverPending();
          const { events: rows } = await readEventFeed(services, user.idUser, since, 100);
          const produced = rows.map(mapEvent).filter((e) => e.type === kind);
          if (produced.length === 0) throw new CliError(`No ${kind} event was produced.`);
          if (opts.json) printJson(produced);
          else for (const e of produced) console.log(eventLine(e));
        });
      }),
    );
}
