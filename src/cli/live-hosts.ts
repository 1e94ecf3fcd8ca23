import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { type Upstream, parseUpstream, startDns, systemUpstream } from '../sandbox/dns.js';
import { TLS_FILES, tlsDirOf } from '../sandbox/tls-files.js';
import { CliError, configFrom, printJson, reportErrors } from './context.js';

/**
 * Clients with the live host built in (README, "Clients with the live host built in"): `tls init`
 * and `tls trust` for https under the live host names, `dns` to send those names here. Sandbox only.
 */
export function registerLiveHostCommands(program: Command): void {
  const tls = program
    .command('tls')
    .description('Sandbox: https under the live host names, with a local certificate authority.');

  tls
    .command('init')
    .description(
      'Make a local certificate authority (kept if the folder has one) and a server certificate for the live hosts, localhost, 127.0.0.1 and ::1; keys owner-only.',
    )
    .option('--dir <dir>', 'the folder (default: TLS_DIR, else `tls` in the data folder)')
    .option(
      '--new-authority',
      'replace the authority too (clients trusting the old one must trust the new one)',
    )
    .option('--json', 'print what was made as JSON')
    .action(
      reportErrors(async (opts: { dir?: string; newAuthority?: boolean; json?: boolean }, cmd: Command) => {
        const config = sandboxConfig(cmd, 'tls init');
        const dir = opts.dir ? resolve(opts.dir) : tlsDirOf(config);
        // The certificate maker (node-forge) is loaded only by the command that needs it.
        const { certificateNames, initTls } = await import('../sandbox/tls.js');
        const made = initTls(dir, certificateNames(config), { newAuthority: opts.newAuthority });
        const files = {
          authority: join(dir, TLS_FILES.caCert),
          authorityKey: join(dir, TLS_FILES.caKey),
          certificate: join(dir, TLS_FILES.cert),
          key: join(dir, TLS_FILES.key),
        };
        if (opts.json) {
          printJson({
            ...files,
            newAuthority: made.newAuthority,
            fingerprint: made.fingerprint,
            names: made.names,
            addresses: made.addresses,
            expires: made.serverExpires.toISOString(),
          });
          return;
        }
        console.log(
          [
            `${made.newAuthority ? 'Made a new' : 'Kept the'} certificate authority ${files.authority}`,
            `  SHA-256 ${made.fingerprint}`,
            `Issued ${files.certificate} for ${[...made.names, ...made.addresses].join(', ')}`,
            `  valid until ${made.serverExpires.toISOString().slice(0, 10)}`,
            `Keys, readable by their owner only and never served: ${files.authorityKey}, ${files.key}`,
            '',
            `Next: trust the authority (\`cardbazaar tls trust${opts.dir ? ` --dir ${dir}` : ''}\` says how), then`,
            `  cardbazaar serve --tls-port 8443${opts.dir ? ` --tls-dir ${dir}` : ''}`,
          ].join('\n'),
        );
      }),
    );

  tls
    .command('trust')
    .description(
      'Print how to trust the local authority for Node, Python, PHP/curl, Go, Java, .NET and Debian/Alpine system stores, and what its key can do.',
    )
    .option('--dir <dir>', 'the folder (default: TLS_DIR, else `tls` in the data folder)')
    .action(
      reportErrors(async (opts: { dir?: string }, cmd: Command) => {
        const config = sandboxConfig(cmd, 'tls trust');
        const dir = opts.dir ? resolve(opts.dir) : tlsDirOf(config);
        if (!existsSync(join(dir, TLS_FILES.caCert))) {
          throw new CliError(
            `There is no authority in ${dir}: run \`cardbazaar tls init${opts.dir ? ` --dir ${dir}` : ''}\` first.`,
          );
        }
        const { trustInstructions } = await import('../sandbox/tls.js');
        console.log(trustInstructions(dir));
      }),
    );

  program
    .command('dns')
    .description(
      "Sandbox: a resolver answering A/AAAA for the live hosts with this server's address and passing every other name to an upstream resolver (UDP and TCP). `--port N` is the port it answers on (default 53, what a system or Docker resolver must be; 0: any free port).",
    )
    .option('--listen <address>', 'the address to answer on', '127.0.0.1')
    .option(
      '--address <addresses>',
      'what the live hosts resolve to, comma-separated (IPv4 answers A, IPv6 AAAA; default: HOST, or 127.0.0.1 when HOST listens on every address)',
    )
    .option('--upstream <addr:port>', "where other names go (default: the system's first resolver)")
    .option('--quiet', 'do not print a line per question')
    .action(
      reportErrors(
        async (
          opts: { listen: string; address?: string; upstream?: string; quiet?: boolean },
          cmd: Command,
        ) => {
          const config = sandboxConfig(cmd, 'dns');
          // `--port` is the global flag (PORT's) read as typed on this command: the resolver's port,
          // never the API's PORT from the environment.
          const typed = (cmd.optsWithGlobals() as { port?: string }).port ?? '53';
          const port = Number(typed);
          if (!/^\d+$/.test(typed) || port > 65535) {
            throw new CliError(`--port must be a port number (0 to 65535), got "${typed}".`);
          }
          if (isIP(opts.listen) === 0)
            throw new CliError(`--listen must be an address, got "${opts.listen}".`);
          const addresses = (opts.address ?? defaultAddress(config)).split(',').map((a) => a.trim());
          for (const a of addresses) {
            if (isIP(a) === 0) throw new CliError(`--address takes IPv4 or IPv6 addresses, got "${a}".`);
          }
          let upstream: Upstream | undefined;
          try {
            upstream = opts.upstream === undefined ? systemUpstream() : parseUpstream(opts.upstream);
          } catch (err) {
            throw new CliError(`--upstream: ${(err as Error).message}`);
          }
          if (!upstream)
            throw new CliError('This system names no resolver: give one with --upstream ADDR:PORT.');
          if (upstream.port === port && upstream.address === opts.listen) {
            throw new CliError(
              `The upstream resolver ${opts.listen}:${port} is this resolver itself: give another with --upstream.`,
            );
          }
          // LIVE_HOSTS as configured, the moved host included: it must reach the sandbox to answer 410.
          const names = config.liveHosts;
          if (names.length === 0) throw new CliError('LIVE_HOSTS is empty: there is no name to answer.');
          const server = await startDns({
            listen: opts.listen,
            port,
            names,
            addresses,
            upstream,
            onQuestion: opts.quiet
              ? undefined
              : (q) =>
                  console.log(
                    `${q.answered === 'here' ? 'answered' : q.answered === 'upstream' ? 'passed on' : 'upstream failed'}  ${q.type} ${q.name}`,
                  ),
          }).catch((err: NodeJS.ErrnoException) => {
            if (err.code === 'EACCES') {
              throw new CliError(
                `Not allowed to answer on ${opts.listen}:${port}: ports below 1024 need a capability (sudo setcap 'cap_net_bind_service=+ep' "$(readlink -f "$(command -v node)")"), or use --port 5353 and a forward (README, "Clients with the live host built in").`,
              );
            }
            if (err.code === 'EADDRINUSE') throw new CliError(`${opts.listen}:${port} is already in use.`);
            throw err;
          });
          const at = server.address.includes(':') ? `[${server.address}]` : server.address;
          console.log(
            `cardbazaar dns answering on ${at}:${server.port} (udp and tcp): ${names.join(', ')} → ${addresses.join(', ')}; every other name → ${upstream.address}:${upstream.port}`,
          );
          await new Promise<void>((resolve) => {
            const stop = () => {
              process.off('SIGINT', stop);
              process.off('SIGTERM', stop);
              resolve();
            };
            process.on('SIGINT', stop);
            process.on('SIGTERM', stop);
          });
          await server.close();
        },
      ),
    );
}

/** The configuration, refusing production: none of this has a place there. */
function sandboxConfig(cmd: Command, name: string): Config {
  const config = configFrom(cmd);
  if (config.mode !== 'sandbox') {
    throw new CliError(
      `\`cardbazaar ${name}\` is for the sandbox only: production never answers for the live hosts.`,
    );
  }
  return config;
}

/** HOST, unless it listens on every address (then loopback: the address this machine reaches it on). */
function defaultAddress(config: Config): string {
  if (config.host === '0.0.0.0' || config.host === '') return '127.0.0.1';
  if (config.host === '::') return '::1';
  if (config.host === 'localhost') return '127.0.0.1';
  return config.host;
}
