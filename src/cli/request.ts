import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildApp } from '../app.js';
import { describeAppById, describeApps } from '../auth/apps.js';
import { authorizationHeader, type ClientCredentials } from '../auth/client.js';
import { API_PREFIX } from '../http/routing.js';
import { CliError, reportErrors, userByName, withServices } from './context.js';

/**
 * `cardbazaar request GET /account --user demo-seller`: a correctly signed request with a stored app
 * of that user, printed as status, headers and body. It talks to the running server; with
 * `--in-process` (or when nothing listens) it answers from the database directly.
 */
export function registerRequestCommand(program: Command): void {
  program
    .command('request <method> <path>')
    .description('Make a signed API request as a user and print status, headers and body.')
    .requiredOption(
      '--user <username>',
      'act as this user: with their first live dedicated app, or with --app',
    )
    .option(
      '--app <idApp>',
      "which app to sign with: one of the user's, or a third-party app holding a token for them",
    )
    .option('--json', 'ask for JSON (the output.json segment)')
    .option('--body <file>', 'send this file as the XML request body')
    .option('--base-url <url>', 'server address (default: PUBLIC_BASE_URL or http://HOST:PORT)')
    .option('--in-process', 'answer from the database in this process instead of over HTTP')
    .action(
      reportErrors(
        async (method: string, path: string, opts: Record<string, string | boolean>, cmd: Command) => {
          await withServices(cmd, async (services) => {
            const user = await userByName(services, opts.user as string);
            const cred = await pickCredentials(services, user.idUser, opts.app as string | undefined);
            const { config } = services;
            const base =
              (opts.baseUrl as string | undefined) ??
              config.publicBaseUrl ??
              `http://${config.host}:${config.port}`;
            let rel = path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
            if (!rel.startsWith('/')) rel = `/${rel}`;
            const url = `${base.replace(/\/+$/, '')}${API_PREFIX}${opts.json ? '/output.json' : ''}${rel}`;
            const verb = method.toUpperCase();
            const body = opts.body ? readFileSync(opts.body as string, 'utf8') : undefined;
            const headers: Record<string, string> = { Authorization: authorizationHeader(verb, url, cred) };
            if (body !== undefined) headers['Content-Type'] = 'application/xml; charset=utf-8';

            let status: number;
            let responseHeaders: Array<[string, string]>;
            let text: string;
            let inProcess = Boolean(opts.inProcess);
            if (!inProcess) {
              try {
                const res = await fetch(url, { method: verb, headers, body, redirect: 'manual' });
                status = res.status;
                responseHeaders = [...res.headers.entries()];
                text = await res.text();
              } catch (err) {
                const code = (err as { cause?: { code?: string } }).cause?.code;
                if (code !== 'ECONNREFUSED') throw err;
                console.error(
                  `(nothing listens on ${base}; answering in-process from ${services.database.location})`,
                );
                inProcess = true;
              }
            }
            if (inProcess) {
              const app = await buildApp(services);
              const u = new URL(url);
              const res = await app.inject({
                method: verb as 'GET',
                url: u.pathname + u.search,
                headers: { ...headers, host: u.host },
                payload: body,
              });
              status = res.statusCode;
              responseHeaders = Object.entries(res.headers).map(([k, v]) => [k, String(v)]);
              text = res.body;
              await app.close();
            }
            console.log(`${verb} ${url}`);
            console.log(`HTTP ${status!}`);
            for (const [k, v] of responseHeaders!) console.log(`${k}: ${v}`);
            console.log('');
            console.log(
              opts.json && text!.startsWith('{') ? JSON.stringify(JSON.parse(text!), null, 2) : text!,
            );
          });
        },
      ),
    );
}

async function pickCredentials(
  services: Parameters<typeof describeApps>[0],
  idUser: number,
  idApp: string | undefined,
): Promise<ClientCredentials> {
  if (idApp !== undefined) {
    // An app named explicitly is used even when it or its token is revoked, so the 401 can be seen;
    // it may be another user's third-party app that holds a token for this user.
    const app = /^\d{1,9}$/.test(idApp) ? await describeAppById(services, Number(idApp)) : undefined;
    const mine = app?.idOwner === idUser;
    const tokens = app?.accessTokens.filter((t) => t.idUser === idUser) ?? [];
    const token = tokens.find((t) => !t.revoked) ?? tokens.at(-1);
    if (!app || (!mine && !token))
      throw new CliError(`This user has no app ${idApp}, nor a token of app ${idApp}.`);
    return {
      appToken: app.appToken,
      appSecret: app.appSecret,
      accessToken: token?.token ?? '',
      accessTokenSecret: token?.secret ?? '',
    };
  }
  const live = (await describeApps(services, idUser)).filter((a) => !a.revoked);
  // The first live dedicated app, else any live app that can act for the user (a widget app needs
  // no token; a third-party app of the user's own needs one for them).
  const chosen =
    live.find((a) => a.kind === 'dedicated') ??
    live.find((a) => a.kind === 'widget' || a.accessTokens.some((t) => t.idUser === idUser));
  if (chosen) {
    const token = chosen.accessTokens.find((t) => t.idUser === idUser);
    return {
      appToken: chosen.appToken,
      appSecret: chosen.appSecret,
      accessToken: token?.token ?? '',
      accessTokenSecret: token?.secret ?? '',
    };
  }
  throw new CliError(
    'This user has no live app: create one with `cardbazaar app create --user NAME --kind dedicated`.',
  );
}
