import type { Command } from 'commander';
import { getAccount } from '../domain/account.js';
import { parsePriceCents } from '../domain/money.js';
import {
  parseSellerActivationStart,
  sellerActivationStatus,
  transferText,
} from '../domain/seller-activation.js';
import { createUser, fundUser, normalizeCountry, parseAccountType } from '../domain/users.js';
import { mapAccount } from '../mappers/account.js';
import { formatTimestamp } from '../format.js';
import { CliError, printJson, reportErrors, userByName, withServices } from './context.js';
import { setPassword } from '../auth/sign-in.js';
import { createPasswordReset, resetLinkPath } from '../auth/password-reset.js';

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('Marketplace users.');

  user
    .command('create')
    .description('Create a user and print it as JSON.')
    .requiredOption('--username <name>', 'the unique user name')
    .option('--country <code>', 'country code (D for Germany, FR, IT, GB, …)', 'D')
    .option('--type <type>', 'account type: private, professional or powerseller', 'private')
    .option('--balance <amount>', 'starting money balance in EUR, e.g. 100.00', '0')
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--email <email>')
    .option(
      '--seller-activation <state>',
      '3: may sell at once (the default); 0: must complete the seller activation first',
      '3',
    )
    .action(
      reportErrors(async (opts: Record<string, string>, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const created = await createUser(services, {
            username: opts.username!,
            country: normalizeCountry(opts.country!),
            accountType: parseAccountType(opts.type!),
            balanceCents: parsePriceCents(opts.balance!, 'balance'),
            firstName: opts.firstName,
            lastName: opts.lastName,
            email: opts.email,
            sellerActivation: parseSellerActivationStart(opts.sellerActivation!),
          });
          printJson(mapAccount(await getAccount(services, created.idUser)));
        });
      }),
    );

  user
    .command('show <username>')
    .description("Print a user's account as the API shows it.")
    .action(
      reportErrors(async (username: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const u = await userByName(services, username);
          printJson(mapAccount(await getAccount(services, u.idUser)));
        });
      }),
    );

  user
    .command('activation <username>')
    .description(
      "Show a user's seller activation: its state, the bank account, and once they have arrived the two transfers the user must confirm (PUT /account/selleractivation).",
    )
    .action(
      reportErrors(async (username: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const u = await userByName(services, username);
          const status = await sellerActivationStatus(services, u.idUser);
          printJson({
            username: u.username,
            sellerActivation: status.sellerActivation,
            maySell: status.maySell,
            bankAccount: status.bankAccount,
            requestedAt: status.requestedAt === null ? null : formatTimestamp(status.requestedAt),
            transfersAt: status.transfersAt === null ? null : formatTimestamp(status.transfersAt),
            transfers: status.transfers?.map(transferText) ?? null,
            failedAttempts: status.failedAttempts,
          });
        });
      }),
    );

  user
    .command('fund <username> <amount>')
    .description("Top up a user's money balance by an amount in EUR (e.g. 25.00).")
    .action(
      reportErrors(async (username: string, amount: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const u = await userByName(services, username);
          await fundUser(services, u.idUser, parsePriceCents(amount, 'amount'));
          const account = mapAccount(await getAccount(services, u.idUser));
          printJson({ username, moneyDetails: account.moneyDetails });
        });
      }),
    );

  user
    .command('password <username>')
    .description(
      'Set the password a user signs in to the website with, read from standard input (one line; e.g. `echo "$PW" | cardbazaar user password NAME`). Signs the user out everywhere.',
    )
    .action(
      reportErrors(async (username: string, _opts: unknown, cmd: Command) => {
        const password = await readPasswordLine(process.stdin);
        await withServices(cmd, async (services) => {
          const u = await userByName(services, username);
          await setPassword(services, u.idUser, password);
          console.log(`The password of ${u.username} is set.`);
        });
      }),
    );

  user
    .command('reset-link <username>')
    .description(
      "Print a one-time link to set a user's website password, valid one hour (PUBLIC_BASE_URL, else http://HOST:PORT, starts it).",
    )
    .action(
      reportErrors(async (username: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const u = await userByName(services, username);
          const { token, expiresAt } = await createPasswordReset(services, u.idUser);
          const { config } = services;
          const base =
            config.publicBaseUrl ??
            `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
          console.log(`${base}${resetLinkPath(token)}`);
          console.error(`Valid until ${formatTimestamp(expiresAt)}, once.`);
        });
      }),
    );
}

/**
 * A password from standard input: the first line (a newline ends it, and is not part of it), so
 * `echo`, a here-string or a file all work; a terminal is asked for it.
 */
export async function readPasswordLine(input: NodeJS.ReadStream | NodeJS.ReadableStream): Promise<string> {
  if ('isTTY' in input && input.isTTY) process.stderr.write('New password (then Enter): ');
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    const end = text.search(/\r?\n/);
    if (end !== -1) {
      text = text.slice(0, end);
      break;
    }
  }
  if (text === '')
    throw new CliError(
      'No password on standard input: send it as one line, e.g. echo "$PW" | cardbazaar user password NAME.',
    );
  return text;
}
