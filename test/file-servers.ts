import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config.js';
import { testConfig } from '../src/config.js';
import { type CliResult, runCli } from './cli-helpers.js';
import { startFileTestServer, startTestServer, type TestServer } from './helpers.js';

/**
 * Servers on one database file beside the command line, as an operator runs them: what a command
 * writes into the file (a fault, a snapshot load) must reach every server on it.
 */

/** The test configuration's server key: the CLI derives the same app credentials with it. */
export const SECRET = testConfig().secretKey!;

/** Puts a test server on a real port (fetch, not inject); answers its base URL. */
export async function listen(server: TestServer): Promise<string> {
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
}

/** `cardbazaar …` in this process, on the given database with the test server key. */
export function cliOn(databaseUrl: string): (...args: string[]) => Promise<CliResult> {
  return (...args) => runCli('--secret-key', SECRET, '--database-url', databaseUrl, ...args);
}

/** The same in production mode (the settings it requires given), to see what production refuses. */
export function productionCliOn(databaseUrl: string): (...args: string[]) => Promise<CliResult> {
  return (...args) =>
    runCli(
      '--production',
      '--secret-key',
      SECRET,
      '--public-base-url',
      'https://api.example.org',
      '--database-url',
      databaseUrl,
      ...args,
    );
}

export interface TwoServers {
  first: TestServer & { databaseUrl: string };
  second: TestServer;
  base1: string;
  base2: string;
  databaseUrl: string;
  cli: (...args: string[]) => Promise<CliResult>;
  /** Closes both (the second first: the first removes the file). */
  close(): Promise<void>;
}

/** Two servers listening on one SQLite file of their own, each with its own configuration. */
export async function startTwoServers(
  config: { first?: Partial<Config>; second?: Partial<Config> } = {},
): Promise<TwoServers> {
  const first = await startFileTestServer(config.first);
  let second: TestServer | undefined;
  try {
    second = await startTestServer({ config: { ...config.second, databaseUrl: first.databaseUrl } });
    const [base1, base2] = [await listen(first), await listen(second)];
    const both = second;
    return {
      first,
      second,
      base1,
      base2,
      databaseUrl: first.databaseUrl,
      cli: cliOn(first.databaseUrl),
      async close() {
        await both.close();
        await first.close();
      },
    };
  } catch (err) {
    await second?.close();
    await first.close();
    throw err;
  }
}
