import type { Command } from 'commander';
import { type Explanation, explainSignature } from '../auth/explain.js';
import { latestRequestLog, type RequestLogListRow, requestLogAfter } from '../store/request-log.js';
import { translator } from '../web/i18n/index.js';
import { liveHostOrigins } from '../http/live-hosts.js';
import { CliError, configFrom, printJson, reportErrors, userByName, withServices } from './context.js';

/**
 * `cardbazaar requests tail --user NAME` (the request log as it grows) and `cardbazaar oauth
 * explain` (the signature debugger from options). docs/testing-your-client.md, "The request log".
 */
export function registerRequestLogCommands(program: Command): void {
  program
    .command('requests')
    .description("A user's request log.")
    .command('tail')
    .description("Print a user's latest API requests, then each new one as it is recorded.")
    .requiredOption('--user <username>', 'the user')
    .option('--lines <n>', 'how many of the latest requests to print first', '10')
    .option('--no-follow', 'print the latest requests and stop')
    .option('--count <n>', 'stop after this many new requests (default: run until interrupted)')
    .option('--interval <ms>', 'how often to look for new requests', '500')
    .action(
      reportErrors(
        async (
          opts: { user: string; lines: string; follow: boolean; count?: string; interval: string },
          cmd: Command,
        ) => {
          const lines = positive(opts.lines, '--lines', true);
          const interval = positive(opts.interval, '--interval');
          const count = opts.count === undefined ? Infinity : positive(opts.count, '--count');
          const colour = Boolean(process.stdout.isTTY) && process.env.NO_COLOR === undefined;
          await withServices(cmd, async (services) => {
            const user = await userByName(services, opts.user);
            const db = services.database.db;
            const latest = lines > 0 ? await latestRequestLog(db, user.idUser, lines) : [];
            for (const row of latest) console.log(formatRequestLine(row, colour));
            if (!opts.follow) return;
            let last =
              latest.at(-1)?.idRequest ?? (await latestRequestLog(db, user.idUser, 1))[0]?.idRequest ?? 0;
            let printed = 0;
            let stop = false;
            const interrupt = () => (stop = true);
            process.once('SIGINT', interrupt);
            try {
              while (!stop && printed < count) {
                const rows = await requestLogAfter(db, user.idUser, last, 100);
                for (const row of rows) {
                  if (printed >= count) break;
                  console.log(formatRequestLine(row, colour));
                  printed++;
                  last = row.idRequest;
                }
                if (rows.length < 100 && printed < count) await new Promise((r) => setTimeout(r, interval));
              }
            } finally {
              process.off('SIGINT', interrupt);
            }
          });
        },
      ),
    );

  program
    .command('oauth')
    .description('OAuth 1.0 signatures.')
    .command('explain')
    .description(
      'Check a signature step by step as the server does (parameters, base string, key, signature) and name the mistake when it differs. Exit code 1 unless the signature is valid.',
    )
    .option('--method <method>', 'the HTTP method', 'GET')
    .requiredOption('--url <url>', 'the URL as the client requested it, with the query')
    .requiredOption('--authorization <header>', 'the Authorization header the client sent')
    .option('--consumer-secret <secret>', 'the app secret', '')
    .option('--token-secret <secret>', 'the access token secret (empty for widget apps)', '')
    .option('--base-string <text>', 'the base string the client computed, to find the first difference')
    .option('--json', 'print the explanation as JSON')
    .action(
      reportErrors(
        async (
          opts: {
            method: string;
            url: string;
            authorization: string;
            consumerSecret: string;
            tokenSecret: string;
            baseString?: string;
            json?: boolean;
          },
          cmd: Command,
        ) => {
          const e = explainSignature({
            liveHosts: liveHostOrigins(configFrom(cmd)),
            method: opts.method,
            url: opts.url,
            authorization: opts.authorization,
            consumerSecret: opts.consumerSecret,
            tokenSecret: opts.tokenSecret,
            clientBaseString: opts.baseString,
          });
          if (opts.json) printJson(e);
          else console.log(formatExplanation(e));
          if (e.verdict !== 'valid' && e.verdict !== 'accepted') process.exitCode = 1;
        },
      ),
    );
}

function positive(text: string, name: string, zero = false): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < (zero ? 0 : 1) || n > 1_000_000) {
    throw new CliError(`${name} must be a whole number${zero ? '' : ' above 0'}, got "${text}".`);
  }
  return n;
}

const COLOURS: Record<number, string> = { 2: '32', 3: '36', 4: '33', 5: '31' };

/** One request on one line; on a terminal coloured by status class (green 2xx … red 5xx). */
export function formatRequestLine(row: RequestLogListRow, colour: boolean): string {
  const line = [
    new Date(Number(row.time)).toISOString(),
    String(row.status),
    row.method.padEnd(6),
    `${row.path}${row.query ? `?${row.query}` : ''}`,
    `${(row.durationMicros / 1000).toFixed(1)} ms`,
    row.idApp === null ? '' : `app ${row.idApp}`,
    row.internalErrorCode ?? '',
    row.signedOver === null ? '' : `signed for ${row.signedOver}`,
  ]
    .filter((part) => part !== '')
    .join('  ');
  const code = COLOURS[Math.floor(row.status / 100)];
  return colour && code ? `\u001b[${code}m${line}\u001b[0m` : line;
}

/** The debugger's steps as text, with the website's English texts for verdicts and mistakes. */
export function formatExplanation(e: Explanation): string {
  const t = translator('en');
  const verdict = {
    valid: t('debugger.valid'),
    accepted: t('debugger.accepted'),
    mismatch: t('debugger.mismatch'),
    no_signature: t('debugger.noSignature'),
    unreadable: t('debugger.unreadable'),
  }[e.verdict];
  const out = [`${e.verdict}: ${verdict}`];
  if (e.liveHost) out.push(`  ${t('debugger.liveHost', { origin: e.liveHost })}`);
  for (const p of e.problems) out.push(`  - ${p}`);
  if (e.verdict === 'unreadable') return out.join('\n');
  if (e.mistakes.length > 0 || e.verdict === 'mismatch') {
    out.push('', t('debugger.mistakes'));
    if (e.mistakes.length === 0) out.push(`  ${t('debugger.noMistake')}`);
    for (const m of e.mistakes) out.push(`  - ${m.code}: ${t.maybe(`debugger.mistake.${m.code}`) ?? m.code}`);
  }
  if (e.difference) {
    const d = e.difference;
    out.push(
      '',
      d.parameter
        ? t('debugger.differenceParameter', { index: d.index, parameter: d.parameter })
        : t('debugger.difference', { index: d.index, part: t(`debugger.part.${d.part}`) }),
      `  ${t('debugger.serverSide')}: …${d.expected}…`,
      `  ${t('debugger.clientSide')}: …${d.client}…`,
    );
  }
  const width = Math.max(...e.parameters.map((p) => p.name.length), 4);
  out.push('', t('debugger.step1'));
  for (const p of e.parameters) {
    out.push(
      `  ${p.name.padEnd(width)}  ${p.source === 'header' ? 'header' : 'query '}  ${p.signed ? 'signed    ' : 'not signed'}  ${p.value}`,
    );
  }
  out.push('', t('debugger.step2'), `  ${e.parameterString}`);
  out.push('', t('debugger.step3'), `  ${e.baseString}`);
  out.push('', t('debugger.step4'), `  ${e.maskedKey}`);
  out.push(
    '',
    t('debugger.step5'),
    `  ${t('debugger.expected')}: ${e.expectedSignature}`,
    `  ${t('debugger.sent')}: ${e.sentSignature ?? ''}`,
  );
  return out.join('\n');
}
