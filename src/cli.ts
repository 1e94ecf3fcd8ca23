import { Command } from 'commander';
import { registerAppCommands } from './cli/apps.js';
import { registerClockCommands } from './cli/clock.js';
import { addSettingOptions } from './cli/context.js';
import { registerCouponCommands } from './cli/coupons.js';
import { registerRequestCommand } from './cli/request.js';
import { registerServeCommands } from './cli/serve.js';
import { registerUserCommands } from './cli/users.js';

/** The `cardbazaar` command. Every setting is a global option beside its environment variable. */
export function buildCli(): Command {
  const program = new Command('cardbazaar')
    .description('A self-hosted trading-card marketplace server speaking the Marketplace API 2.0.')
    .showHelpAfterError();
  addSettingOptions(program);
  registerServeCommands(program);
  registerUserCommands(program);
  registerAppCommands(program);
  registerCouponCommands(program);
  registerClockCommands(program);
  registerRequestCommand(program);
  return program;
}

await buildCli().parseAsync(process.argv);
