import type { Command } from 'commander';
import { TRIGGERABLE_KINDS, triggerEvent } from '../domain/event-triggers.js';
import { readEventFeed } from '../domain/user-events.js';
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
      `Sandbox: make the marketplace produce an event for real (e.g. order.stateChanged through simulate purchase) and print it. Kinds: ${TRIGGERABLE_KINDS.join(', ')}.`,
    )
    .requiredOption(
      '--user <name>',
      'the user the event concerns (for orders and articles: the seller, whose articles are bought)',
    )
    .option('--json', 'print the events as JSON')
    .option(
      '--override <field=value>',
      'a field of the event instead of a made-up one (message.received: text; order.trackingNumberSet: trackingNumber); repeatable',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(
      reportErrors(
        async (kind: string, opts: { user: string; json?: boolean; override?: string[] }, cmd: Command) => {
          const override: Record<string, string> = {};
          for (const pair of opts.override ?? []) {
            const eq = pair.indexOf('=');
            if (eq < 1) throw new CliError(`--override takes field=value, got "${pair}".`);
            override[pair.slice(0, eq)] = pair.slice(eq + 1);
          }
          await withServices(cmd, async (services) => {
            const produced = (await triggerEvent(services, { kind, user: opts.user, override })).map(
              mapEvent,
            );
            if (opts.json) printJson(produced);
            else for (const e of produced) console.log(eventLine(e));
          });
        },
      ),
    );
}
