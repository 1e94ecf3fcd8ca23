import type { Command } from 'commander';
import { OPERATOR_HEADER, OPERATOR_PREFIX, operatorHeader } from '../limits/operator.js';
import { resetUsage, type UsageReport, usageReport } from '../limits/usage.js';
import type { Services } from '../services.js';
import { CliError, printJson, reportErrors, userByName, withServices } from './context.js';

/**
 * `cardbazaar limits show|reset --user NAME`: a user's request counts (docs/api.md, "Limits").
 *
 * With REDIS_URL the counts live in Redis, and the command reads or clears them there directly.
 * Without it they live in the memory of the running server, which no other process can read: the
 * command then asks that server (`--base-url`, default PUBLIC_BASE_URL or http://HOST:PORT) through
 * its operator path, signed with SECRET_KEY. When no server runs there are no counts to show or to
 * clear: a server starts every count from zero.
 */
export function registerLimitsCommands(program: Command): void {
  const limits = program.command('limits').description("A user's request counts against the limits.");

  const action = (reset: boolean) =>
    reportErrors(async (opts: { user: string; baseUrl?: string }, cmd: Command) => {
      await withServices(cmd, async (services) => {
        const user = await userByName(services, opts.user);
        if (services.redis) {
          printJson(reset ? await resetUsage(services, user) : await usageReport(services, user));
          return;
        }
        const report = await askServer(services, reset ? 'DELETE' : 'GET', user.username, opts.baseUrl);
        if (report) {
          printJson(report);
        } else if (reset) {
          console.log(
            "No server is running there, so there are no counts to clear: without REDIS_URL they live in the server's memory, and a server starts every count from zero.",
          );
        } else {
          throw new CliError(
            'No server is running there: without REDIS_URL the counts live in the memory of the running server (start it, or pass --base-url).',
          );
        }
      });
    });

  limits
    .command('show')
    .description("Print a user's requests today (and in the current minute) against each limit.")
    .requiredOption('--user <username>', 'the user')
    .option('--base-url <url>', 'the running server, when the counts live in its memory (no REDIS_URL)')
    .action(action(false));

  limits
    .command('reset')
    .description("Clear a user's counts (the day's and the minute's), e.g. in the sandbox.")
    .requiredOption('--user <username>', 'the user')
    .option('--base-url <url>', 'the running server, when the counts live in its memory (no REDIS_URL)')
    .action(action(true));
}

/** Asks the running server; undefined when nothing listens there. */
async function askServer(
  services: Services,
  method: 'GET' | 'DELETE',
  username: string,
  baseUrl: string | undefined,
): Promise<UsageReport | undefined> {
  const { config } = services;
  const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
  const base = (
    baseUrl ??
    config.publicBaseUrl ??
    `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`
  ).replace(/\/+$/, '');
  const path = OPERATOR_PREFIX + encodeURIComponent(username);
  let res: Response;
  try {
    res = await fetch(base + path, {
      method,
      headers: { [OPERATOR_HEADER]: operatorHeader(services.serverKey, method, path, Date.now()) },
    });
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') {
      console.error(`(nothing listens on ${base})`);
      return undefined;
    }
    throw new CliError(`Cannot reach the server at ${base}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: { error?: string } & Partial<UsageReport>;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CliError(
      `The server at ${base} answered ${res.status} without the expected report: ${text.slice(0, 200)}`,
    );
  }
  if (!res.ok) throw new CliError(`The server at ${base} answered ${res.status}: ${body.error ?? text}`);
  return body as UsageReport;
}
