import type { Command } from 'commander';
import {
  createAccessToken,
  createApp,
  describeApps,
  parseAppKind,
  revokeAccessTokenById,
  revokeAppById,
} from '../auth/apps.js';
import { callbackUrlProblem } from '../auth/own-apps.js';
import { CliError, printJson, reportErrors, userByName, withServices } from './context.js';

function positiveInt(text: string, what: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new CliError(`${what} must be a positive integer id.`);
  return Number(text);
}

export function registerAppCommands(program: Command): void {
  const app = program
    .command('app')
    .description('API apps (dedicated, widget, third-party) and their credentials.');

  app
    .command('create')
    .description('Create an app for a user and print its credentials as JSON.')
    .requiredOption('--user <username>', 'the owner')
    .requiredOption('--kind <kind>', 'dedicated, widget or third-party')
    .option('--name <name>', 'a name for the app')
    .option('--callback-url <url>', 'third-party apps: where the authorization flow returns')
    .action(
      reportErrors(async (opts: Record<string, string>, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const owner = await userByName(services, opts.user!);
          if (opts.callbackUrl !== undefined) {
            const problem = callbackUrlProblem(opts.callbackUrl.trim(), services.config.mode);
            if (problem) throw new CliError(`--callback-url: ${problem}`);
          }
          const issued = await createApp(services, {
            idUser: owner.idUser,
            kind: parseAppKind(opts.kind!),
            name: opts.name,
            callbackUrl: opts.callbackUrl ?? null,
          });
          printJson({
            idApp: issued.app.idApp,
            kind: issued.app.kind,
            name: issued.app.name,
            appToken: issued.appToken,
            appSecret: issued.appSecret,
            ...(issued.accessToken
              ? {
                  idAccessToken: issued.accessToken.idAccessToken,
                  accessToken: issued.accessToken.token,
                  accessTokenSecret: issued.accessToken.secret,
                }
              : {}),
          });
        });
      }),
    );

  app
    .command('show')
    .description("Print a user's apps with their credentials and active access tokens as JSON.")
    .requiredOption('--user <username>')
    .action(
      reportErrors(async (opts: { user: string }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const owner = await userByName(services, opts.user);
          printJson(await describeApps(services, owner.idUser));
        });
      }),
    );

  app
    .command('revoke <idApp>')
    .description('Revoke an app and every access token it has.')
    .action(
      reportErrors(async (idApp: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          await revokeAppById(services, positiveInt(idApp, 'idApp'));
          console.log(`App ${idApp} revoked.`);
        });
      }),
    );

  const token = program.command('token').description('Access tokens of third-party (and dedicated) apps.');

  token
    .command('create')
    .description('Issue an access token for a user of an app and print it as JSON.')
    .requiredOption('--app <idApp>', 'the app')
    .requiredOption('--user <username>', 'the user the token acts for')
    .option('--expires-in-days <days>', 'limited lifetime (third-party tokens)')
    .action(
      reportErrors(async (opts: Record<string, string>, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const user = await userByName(services, opts.user!);
          const days = opts.expiresInDays === undefined ? undefined : positiveInt(opts.expiresInDays, 'days');
          const issued = await createAccessToken(services, {
            idApp: positiveInt(opts.app!, 'idApp'),
            idUser: user.idUser,
            expiresAt: days === undefined ? null : services.clock.now() + days * 86_400_000,
          });
          printJson({
            idAccessToken: issued.idAccessToken,
            accessToken: issued.token,
            accessTokenSecret: issued.secret,
          });
        });
      }),
    );

  token
    .command('revoke <idAccessToken>')
    .description('Revoke one access token.')
    .action(
      reportErrors(async (id: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          await revokeAccessTokenById(services, positiveInt(id, 'idAccessToken'));
          console.log(`Access token ${id} revoked.`);
        });
      }),
    );
}
