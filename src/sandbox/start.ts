import { controlTokenOf } from '../auth/control-token.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../config.js';
import { startServer } from '../server.js';
import { sandboxDocument } from './document.js';
import type { startSandbox as Declared } from '../public.js';
import type { Sandbox, SandboxDocument, SandboxOptions } from './types.js';

/**
 * Starts a sandbox cardbazaar with its demo data and returns the document
 * `cardbazaar serve --print-credentials json` prints, plus `stop()`.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const databaseUrl = options.databaseUrl ?? ':memory:';
  const port = String(options.port ?? 0);
  const host = options.host ?? '127.0.0.1';
  if (options.mode === 'child') return startChild(options, { databaseUrl, port, host });
  const config = loadConfig({ ...process.env, ...options.env }, { databaseUrl, port, host });
  if (config.mode !== 'sandbox')
    throw new Error('startSandbox starts a sandbox: NODE_ENV=production refuses it.');
  const server = await startServer(config, () => {}, {
    log: pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }, pino.destination(2)),
  });
  try {
    const document = await sandboxDocument(
      server.services,
      server.url,
      server.services.database.location,
      controlTokenOf(config, server.services.serverKey),
      server.httpsUrl,
    );
    return { ...document, stop: () => server.stop() };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** The command this package runs as: the compiled CLI, or the TypeScript source under tsx (its own tests). */
function cliCommand(): string[] {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.ts')) {
    return ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('../cli.ts', import.meta.url))];
  }
  return [fileURLToPath(new URL('../cli.js', import.meta.url))];
}

function startChild(
  options: SandboxOptions,
  flags: { databaseUrl: string; port: string; host: string },
): Promise<Sandbox> {
  const args = [
    ...cliCommand(),
    'serve',
    '--database-url',
    flags.databaseUrl,
    '--port',
    flags.port,
    '--host',
    flags.host,
    '--print-credentials',
    'json',
    // The pipe to its stdin closes when this process ends, however it ends: the child follows.
    '--exit-on-stdin-close',
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Promise<Sandbox>((resolve, reject) => {
    let out = '';
    let err = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const onExit = (code: number | null) =>
      reject(new Error(`cardbazaar exited (${code}) before it listened:\n${err.trim()}`));
    child.once('exit', onExit);
    child.once('error', reject);
    child.stderr!.on('data', (d: Buffer) => {
      // Only the start is kept, for the error message; the rest is drained so the child never blocks.
      if (err.length < 20_000) err += d.toString();
    });
    const onData = (d: Buffer) => {
      out += d.toString();
      const end = out.indexOf('\n');
      if (end < 0) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      child.off('exit', onExit);
      let document: SandboxDocument;
      try {
        document = JSON.parse(out.slice(0, end)) as SandboxDocument;
      } catch (e) {
        child.kill('SIGKILL');
        reject(new Error(`cardbazaar printed something else than its document: ${String(e)}`));
        return;
      }
      // A test runner that forgets stop() must still be able to end: the child follows it then.
      unref(child);
      resolve({ ...document, stop: () => stopChild(child, exited) });
    };
    child.stdout!.on('data', onData);
  });
}

function unref(child: ChildProcess): void {
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

// The published declaration (src/public.ts) must describe this very function.
startSandbox satisfies typeof Declared;
