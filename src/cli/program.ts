import { Command } from 'commander';
import { registerAppCommands } from './apps.js';
import { registerCatalogCommands } from './catalog.js';
import { registerClockCommands } from './clock.js';
import { addSettingOptions } from './context.js';
import { registerFaultCommands } from './faults.js';
import { registerCouponCommands } from './coupons.js';
import { registerFixtureCommands } from './fixtures.js';
import { registerLimitsCommands } from './limits.js';
import { registerLiveHostCommands } from './live-hosts.js';
import { registerMarketCommands } from './market.js';
import { registerOpenApiCommand } from './openapi.js';
import { registerOrderCommands } from './orders.js';
import { registerRequestCommand } from './request.js';
import { registerRequestLogCommands } from './request-log.js';
import { registerServeCommands } from './serve.js';
import { registerSnapshotCommands } from './snapshots.js';
import { registerUserCommands } from './users.js';
import { registerEventCommands } from './events.js';
import { registerWebhookCommands } from './webhooks.js';

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
  registerOrderCommands(program);
  registerCatalogCommands(program);
  registerRequestCommand(program);
  registerLimitsCommands(program);
  registerOpenApiCommand(program);
  registerFaultCommands(program);
  registerSnapshotCommands(program);
  registerFixtureCommands(program);
  registerRequestLogCommands(program);
  registerWebhookCommands(program);
  registerEventCommands(program);
  registerLiveHostCommands(program);
  registerMarketCommands(program);
  return program;
}
