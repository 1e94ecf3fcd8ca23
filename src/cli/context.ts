import type { Command } from 'commander';
import { type Config, ConfigError, loadConfig, SETTINGS } from '../config.js';
import { ApiError } from '../errors.js';
import { createServices, type Services } from '../services.js';
import type { User } from '../store/schema.js';
import { findUserByUsername } from '../store/users.js';

/** Adds every setting as a global option (`--port 9000` beside `PORT=9000`). */
export function addSettingOptions(program: Command): void {
  for (const s of SETTINGS) {
    if (s.key === 'mode') {
      program.option(s.flag, s.description);
    } else {
      program.option(
        `${s.flag} <value>`,
        `${s.description} [env ${s.env}${s.default ? `, default ${s.default}` : ''}]`,
      );
    }
  }
}

/** The configuration from the environment and the global flags of this invocation. */
export function configFrom(cmd: Command): Config {
  const opts = cmd.optsWithGlobals() as Record<string, string | boolean | undefined>;
  const flags: Partial<Record<keyof Config, string>> = {};
  for (const s of SETTINGS) {
    const name = s.flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const v = opts[name];
    if (s.key === 'mode') {
      if (v === true) flags.mode = 'production';
    } else if (typeof v === 'string') {
      flags[s.key] = v;
    }
  }
  return loadConfig(process.env, flags);
}

/** Runs a command with the services open, quiet logs, and errors printed as one clear line. */
export async function withServices<T>(cmd: Command, fn: (services: Services) => Promise<T>): Promise<T> {
  const config = configFrom(cmd);
  const services = await createServices({ ...config, logLevel: process.env.LOG_LEVEL ?? 'warn' });
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

export async function userByName(services: Services, username: string): Promise<User> {
  const user = await findUserByUsername(services.database.db, username);
  if (!user) throw new CliError(`There is no user "${username}".`);
  return user;
}

export class CliError extends Error {}

/** Turns any failure into a message on stderr and exit code 1, instead of a stack trace. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- commander passes each command's own argument list
export function reportErrors<A extends any[]>(action: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      if (err instanceof CliError || err instanceof ApiError || err instanceof ConfigError) {
        console.error(`cardbazaar: ${err.message}`);
      } else {
        console.error(err);
      }
      process.exitCode = 1;
    }
  };
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
