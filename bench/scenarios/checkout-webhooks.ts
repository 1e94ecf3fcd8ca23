import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/auth/apps.js';
import { createEndpoint } from '../../src/domain/webhooks.js';
import type { Scenario } from '../scenario.js';
import { checkoutScenario } from './checkout.js';

/**
 * The checkout of 100 articles again, now with every user's dedicated app holding a webhook
 * endpoint for every kind (README, "Events and webhooks"), answered by a receiver in the bench
 * process: each checkout raises `order.stateChanged` for buyer and seller and 100 `article.sold`,
 * derived and delivered by the running server beside the requests. Compared with the plain checkout
 * scenario of the same run, it is the cost of producing and sending events on the checkout path.
 */
let receiverUrl: Promise<string> | undefined;
function receiver(): Promise<string> {
  receiverUrl ??= new Promise((resolve) => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(204);
        res.end();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    });
  });
  return receiverUrl;
}

export const checkoutWebhooksScenario: Scenario<Awaited<ReturnType<typeof checkoutScenario.prepare>>> = {
  ...checkoutScenario,
  name: 'PUT /shoppingcart/checkout (100 articles, webhooks)',
  description: 'the same checkout with a webhook endpoint on every app: 102 events per checkout, delivered',
  async prepare(services) {
    const state = await checkoutScenario.prepare(services);
    const url = await receiver();
    // The seller hears the 100 `article.sold` of each checkout through an app of its own.
    const seller = await services.database.db
      .selectFrom('users')
      .select('idUser')
      .where('username', '=', 'bench-shop')
      .executeTakeFirstOrThrow();
    await createApp(services, { idUser: seller.idUser, kind: 'dedicated' });
    const apps = await services.database.db
      .selectFrom('apps')
      .select(['idApp', 'idUser'])
      .where('kind', '=', 'dedicated')
      .execute();
    for (const app of apps) {
      await createEndpoint(services, services.config, app.idUser, { idApp: app.idApp, url });
    }
    return state;
  },
};
