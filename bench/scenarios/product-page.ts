import fastifyCookie from '@fastify/cookie';
import { startSession } from '../../src/auth/sessions.js';
import type { ClientCredentials } from '../../src/auth/client.js';
import type { Services } from '../../src/services.js';
import { findUserByUsername } from '../../src/store/users.js';
import { SESSION_COOKIE, websiteCookieSecret } from '../../src/web/session.js';
import { dedicatedCredentials } from '../prepare.js';
import type { Scenario } from '../scenario.js';
import { catalogState, HOT_PRODUCT, preparedCatalog } from './catalog.js';

/**
 * The product page of the website (issue 17) against the API's offer page it is built on: the
 * same product's first 100 offers (of 1,500) in the scale-0.2 demo marketplace, read by the demo
 * buyer, once as `GET /articles/:idProduct` (signed, JSON-less XML) and once as the HTML page of a
 * signed-in session (session lookup, product detail, offers, Eta rendering). Each is printed as a
 * ratio to bare node:http serving its bytes; the goal is that the page's ratio is at least 1/1.5
 * of the API's (the page costs no more than 1.5 times the API page).
 */

interface PageState {
  credentials: ClientCredentials;
  cookie: string;
}

async function pageState(services: Services): Promise<PageState> {
  await catalogState(services);
  const buyer = await findUserByUsername(services.database.db, 'demo-buyer');
  // A week: longer than any run, whatever SESSION_LIFETIME says.
  const session = await startSession(services, buyer!.idUser, 7 * 86_400_000);
  const signed = fastifyCookie.sign(session.id, websiteCookieSecret(services.serverKey));
  return {
    credentials: await dedicatedCredentials(services, 'demo-buyer'),
    cookie: `${SESSION_COOKIE}=${encodeURIComponent(signed)}`,
  };
}

export const productApiPageScenario: Scenario<PageState> = {
  name: 'product offers API page (100 offers)',
  description: `GET /articles/${HOT_PRODUCT}, first 100 offers of 1,500, signed as the demo buyer (scale 0.2)`,
  database: () => preparedCatalog(0.2),
  prepare: pageState,
  request: (state) => ({
    method: 'GET',
    path: `/articles/${HOT_PRODUCT}?start=0&maxResults=100`,
    credentials: state.credentials,
  }),
  expectStatus: 206,
};

export const productHtmlPageScenario: Scenario<PageState> = {
  name: 'product page HTML (100 offers)',
  description: `/products/${HOT_PRODUCT} as the website serves it to the signed-in demo buyer: detail, price guide, filters, 100 offers`,
  database: () => preparedCatalog(0.2),
  prepare: pageState,
  request: (state) => ({
    method: 'GET',
    path: `/products/${HOT_PRODUCT}`,
    credentials: state.credentials,
    page: { cookie: state.cookie },
  }),
  expectStatus: 200,
};
