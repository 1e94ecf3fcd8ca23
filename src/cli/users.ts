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
import { printJson, reportErrors, userByName, withServices } from './context.js';

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
}
