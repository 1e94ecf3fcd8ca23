import type { Command } from 'commander';
import { TRIGGER_FIELDS, triggerEvent } from '../domain/event-triggers.js';
import { EVENT_KIND_NAMES, isEventKind, readEventFeed } from '../domain/user-events.js';
import {
  deliveryHeaders,
  endpointSecret,
  FIRST_RETRY_MS,
  postJson,
  RETRY_WINDOW_MS,
  retryDelay,
} from '../domain/webhooks.js';
import { parseDuration } from '../clock.js';
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

/**
 * One POST of an event to the `--forward-to` receiver, with a webhook delivery's headers (the
 * delivery id `listen-<idEvent>`, the same on every retry); whether it succeeded, and what to print.
 */
async function forward(
  services: Services,
  url: string,
  secret: string,
  e: EventTree,
  attempt: number,
): Promise<{ ok: boolean; shown: string }> {
  const body = JSON.stringify(e);
  const unix = Math.floor(services.wallClock.now() / 1000);
  const r = await postJson(
    url,
    body,
    deliveryHeaders(secret, unix, body, e, `listen-${e.idEvent}`, attempt),
    services.config.webhookTimeoutMs,
    // The operator's own command, forwarding to a receiver of their choosing (usually this machine).
    { allowPrivate: true, lookup: systemLookup },
  );
  return {
    ok: r.status !== null && r.status >= 200 && r.status < 300,
    shown: r.status === null ? `no answer (${r.detail ?? r.response})` : String(r.status),
  };
}

/** An event the receiver has not accepted yet: retried as a webhook delivery is. */
interface Retry {
  e: EventTree;
  line: string;
  attempts: number;
  nextAt: number;
  giveUpAt: number;
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
    .option(
      '--max-events <n>',
      'stop after this many events (scripts, tests; pending retries are finished first)',
    )
    .option(
      '--first-retry <duration>',
      'wait before the first retry of a failed forward (then doubling, as webhooks do)',
      '30s',
    )
    .action(
      reportErrors(
        async (
          opts: {
            user: string;
            forwardTo?: string;
            json?: boolean;
            since?: string;
            maxEvents?: string;
            firstRetry: string;
          },
          cmd: Command,
        ) => {
          for (const [name, v] of [
            ['--since', opts.since],
            ['--max-events', opts.maxEvents],
          ] as const) {
            if (v !== undefined && !/^\d{1,9}$/.test(v))
              throw new CliError(`${name} must be a whole number.`);
          }
          let firstRetryMs: number;
          try {
            firstRetryMs = parseDuration(opts.firstRetry);
          } catch (err) {
            throw new CliError(`--first-retry is ${(err as Error).message}.`);
          }
          if (firstRetryMs < 1) throw new CliError('--first-retry must be above 0.');
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
            // Retries wait as a webhook's do (doubling from --first-retry, capped, jittered, given up
            // after three days); later events go on meanwhile, as deliveries to an endpoint do.
            const scale = firstRetryMs / FIRST_RETRY_MS;
            const retries: Retry[] = [];
            const attempt = async (r: Retry) => {
              const { ok, shown } = await forward(services, opts.forwardTo!, secret, r.e, r.attempts + 1);
              r.attempts++;
              const now = Date.now();
              if (ok) {
                console.log(`${r.line}  → ${shown}${r.attempts > 1 ? ` (attempt ${r.attempts})` : ''}`);
                return;
              }
              const next = now + Math.round(retryDelay(r.attempts) * scale);
              if (next >= r.giveUpAt) {
                console.log(`${r.line}  → ${shown}, given up after ${r.attempts} attempts`);
                return;
              }
              console.error(`${r.line}  → ${shown}, attempt ${r.attempts}; retrying in ${next - now} ms`);
              r.nextAt = next;
              retries.push(r);
            };
            try {
              while (!stopped && (seen < max || retries.length > 0)) {
                const due = retries.filter((r) => r.nextAt <= Date.now());
                for (const r of due) {
                  retries.splice(retries.indexOf(r), 1);
                  await attempt(r);
                }
                let page: UserEvent[] = [];
                if (seen < max) {
                  page = (await readEventFeed(services, user.idUser, since, 100)).events as UserEvent[];
                  for (const row of page) {
                    const e = mapEvent(row);
                    since = row.idEvent;
                    const line = opts.json ? JSON.stringify(e) : eventLine(e);
                    if (opts.forwardTo) {
                      const now = Date.now();
                      await attempt({ e, line, attempts: 0, nextAt: now, giveUpAt: now + RETRY_WINDOW_MS });
                    } else console.log(line);
                    if (++seen >= max) break;
                  }
                }
                if (page.length === 0) {
                  const soonest = Math.min(250, ...retries.map((r) => Math.max(0, r.nextAt - Date.now())));
                  await sleep(soonest);
                }
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
      `Sandbox: make the marketplace produce an event for real (e.g. order.stateChanged through simulate purchase) and print it. Kinds: ${EVENT_KIND_NAMES.join(', ')}.`,
    )
    .requiredOption(
      '--user <name>',
      'the user the event concerns (for orders and articles: the seller, whose articles are bought)',
    )
    .option(
      '--override <field=value>',
      `an input of the action behind the event, repeatable (${Object.entries(TRIGGER_FIELDS)
        .map(([k, f]) => `${k}: ${f.join(', ')}`)
        .join('; ')})`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--json', 'print the events as JSON')
    .action(
      reportErrors(
        async (kind: string, opts: { user: string; override?: string[]; json?: boolean }, cmd: Command) => {
          if (!isEventKind(kind))
            throw new CliError(`Unknown event kind "${kind}" (known: ${EVENT_KIND_NAMES.join(', ')}).`);
          const overrides: Record<string, string> = {};
          for (const pair of opts.override ?? []) {
            const eq = pair.indexOf('=');
            if (eq <= 0) throw new CliError(`--override takes field=value (got "${pair}").`);
            const field = pair.slice(0, eq).trim();
            if (field === 'user') throw new CliError('The user is given with --user.');
            overrides[field] = pair.slice(eq + 1);
          }
          await withServices(cmd, async (services) => {
            if (services.config.mode === 'production') {
              throw new CliError('events trigger is a sandbox helper: it is not available in production.');
            }
            const produced = await triggerEvent(services, kind, { ...overrides, user: opts.user });
            if (opts.json) printJson(produced);
            else for (const e of produced) console.log(eventLine(e));
          });
        },
      ),
    );
}
