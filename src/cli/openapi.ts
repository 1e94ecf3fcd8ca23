import type { Command } from 'commander';
import { Router } from '../http/routing.js';
import { registerRoutes } from '../routes/index.js';
import { apiDocument } from '../routes/openapi.js';
import type { Services } from '../services.js';
import { configFrom, reportErrors } from './context.js';

/**
 * `cardbazaar openapi`: the document `GET /ws/v2.0/openapi.json` serves, on standard output, with
 * no server and no database (registering the routes reads only the configuration). Its servers
 * are absolute when PUBLIC_BASE_URL is set, relative otherwise.
 */
export function registerOpenApiCommand(program: Command): void {
  program
    .command('openapi')
    .description('Print the OpenAPI 3.1 document of the API (what GET /ws/v2.0/openapi.json serves).')
    .action(
      reportErrors(async (_opts: unknown, cmd: Command) => {
        const router = new Router();
        const config = configFrom(cmd);
        registerRoutes(router, { config } as Services);
        const origin = config.publicBaseUrl?.replace(/\/+$/, '');
        console.log(JSON.stringify(apiDocument(router, origin, config.mode === 'sandbox'), null, 2));
      }),
    );
}
