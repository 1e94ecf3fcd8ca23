import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/auth/apps.js';
import { createEndpoint } from '../../src/domain/webhooks.js';
import type { Scenario } from '../scenario.js';
import { checkoutScenario } from './checkout.js';

/**
 * The checkout of 100 articles again, now with every user's dedicated app holding a webhook
 * endpoint for every kind (docs/api.md, "Events and webhooks"), answered by a receiver in the bench
 * process: each checkout raises `order.stateChanged` for buyer and seller and 100 `article.sold`,
 * derived and delivered by the running server beside the requests. Compared with the plain checkout
 * scenario of the same run, it is the cost of producing and sending events on the checkout path.
 */
/** Each checkout: `order.stateChanged` to the buyer's and the seller's endpoint, 100 `article.sold` to the seller's. */
const DELIVERIES_PER_CHECKOUT = 102;
/** Longer than this to deliver a round's backlog means deliveries are not keeping up: say so. */
const SETTLE_LIMIT_MS = 60_000;

const received = { total: 0, repeats: 0, byType: new Map<string, number>() };
/** Delivery ids seen: one seen again was retried (an attempt failed or its answer came too late). */
const seen = new Set<string>();
let receiverUrl: Promise<string> | undefined;
function receiver(): Promise<string> {
  receiverUrl ??= new Promise((resolve) => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['cardbazaar-delivery-id']);
        if (seen.has(id)) received.repeats++;
        else received.total++;
        seen.add(id);
        const type = String(req.headers['cardbazaar-event-type']);
        received.byType.set(type, (received.byType.get(type) ?? 0) + 1);
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

type CheckoutState = Awaited<ReturnType<typeof checkoutScenario.prepare>>;
interface WebhooksState extends CheckoutState {
  /** Checkouts sent to cardbazaar so far (the harness's sample included). */
  checkouts: number;
  /** Deliveries received by the end of the previous round. */
  counted: number;
  byType: Map<string, number>;
}

export const checkoutWebhooksScenario: Scenario<WebhooksState> = {
  ...(checkoutScenario as unknown as Scenario<WebhooksState>),
  name: 'PUT /shoppingcart/checkout (100 articles, webhooks)',
  description: `the same checkout with a webhook endpoint on every app: ${DELIVERIES_PER_CHECKOUT} events per checkout, delivered`,
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
      await createEndpoint(services, services.webhookSettings, app.idUser, { idApp: app.idApp, url });
    }
    return { ...state, checkouts: 0, counted: 0, byType: new Map() };
  },
  request(state, i) {
    // Index -1 is the harness's sample: sent once to cardbazaar, then only to the bare server.
    if (i >= 0 || state.checkouts === 0) state.checkouts++;
    return checkoutScenario.request(state, i);
  },
  async afterRound(state) {
    const roundEnd = performance.now();
    const atEnd = received.total;
    const expected = state.checkouts * DELIVERIES_PER_CHECKOUT;
    while (received.total < expected && performance.now() - roundEnd < SETTLE_LIMIT_MS) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const settleMs = performance.now() - roundEnd;
    const during = atEnd - state.counted;
    const total = received.total - state.counted;
    state.counted = received.total;
    const types = [...received.byType].map(([t, n]) => `${t} ${n - (state.byType.get(t) ?? 0)}`).join(', ');
    state.byType = new Map(received.byType);
    const short =
      (received.total < expected ? ` — ${expected - received.total} NOT DELIVERED` : '') +
      (received.repeats > 0 ? ` (${received.repeats} sent again so far)` : '');
    return {
      note: `${total} deliveries (${types}), ${during} during the round, the rest within ${settleMs.toFixed(0)} ms${short}`,
      settleMs,
    };
  },
};
