import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { Router } from '../src/http/routing.js';
import {
  groupOf,
  MARKETPLACE_GROUPS,
  REQUEST_GROUP_NAMES,
  ROUTE_GROUPS,
  routeShape,
} from '../src/limits/groups.js';
import { registerRoutes } from '../src/routes/index.js';
import { startTestServer, type TestServer } from './helpers.js';

/**
 * The route → group table is the one place that says what a route costs (marketplace cap,
 * concurrency rule). A route someone adds without a group would be counted as no group at all, so
 * this fails until it has one.
 */
describe('the request group table', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('has a group for every route the API registers', () => {
    const router = new Router();
    registerRoutes(router, server.services);
    const keys = router.routeKeys();
    assert.ok(keys.includes('GET /account'));
    const missing = keys.filter((k) => groupOf(k) === undefined);
    assert.deepEqual(
      missing,
      [],
      `add these routes to ROUTE_GROUPS in src/limits/groups.ts: ${missing.join(', ')}`,
    );
  });

  it('lists each route shape once, and only known groups', () => {
    const shapes = Object.keys(ROUTE_GROUPS).map(routeShape);
    assert.equal(new Set(shapes).size, shapes.length);
    for (const [key, group] of Object.entries(ROUTE_GROUPS)) {
      assert.match(key, /^(GET|POST|PUT|DELETE) \/[^ ]*$/, key);
      assert.ok((REQUEST_GROUP_NAMES as readonly string[]).includes(group), `${key}: ${group}`);
    }
  });

  it('finds a route whatever its parameters are named', () => {
    assert.equal(groupOf('GET /articles/:idProduct'), 'articles');
    assert.equal(groupOf('GET /articles/:id'), 'articles');
    assert.equal(groupOf('GET /users/:user/articles'), 'userArticles');
    assert.equal(groupOf('GET /users/find'), 'users');
    assert.equal(groupOf('GET /nothing'), undefined);
  });

  it('puts the spec’s marketplace resources in the marketplace group and the rest outside it', () => {
    const market = (key: string) => MARKETPLACE_GROUPS.has(groupOf(key)!);
    for (const key of [
      'GET /games',
      'GET /games/:idGame/expansions',
      'GET /expansions/:idExpansion/singles',
      'GET /products/:idProduct',
      'GET /products/find',
      'GET /metaproducts/:idMetaproduct',
      'GET /metaproducts/find',
      'GET /articles/:idProduct',
      'GET /users/:idUser',
      'GET /users/find',
      'GET /users/:idUser/articles',
      'GET /productlist',
      'GET /priceguide',
    ]) {
      assert.ok(market(key), key);
    }
    for (const key of [
      'GET /account',
      'GET /account/messages',
      'GET /stock',
      'GET /stock/file',
      'POST /exports/stock',
      'GET /shoppingcart',
      'GET /orders/:actor/:state',
      'PUT /order/:idOrder',
      'GET /wantslist',
    ]) {
      assert.ok(!market(key), key);
    }
  });

  it('restricts the expensive groups to one request at a time by default', () => {
    assert.deepEqual(loadConfig({}).limitsConcurrentGroups, [
      'stockFile',
      'exports',
      'userArticles',
      'productSearch',
    ]);
    assert.equal(groupOf('GET /stock/file'), 'stockFile');
    assert.equal(groupOf('GET /products/find'), 'productSearch');
    assert.equal(groupOf('GET /users/:idUser/articles'), 'userArticles');
    assert.equal(groupOf('GET /exports/userOffers/:idUser'), 'exports');
    assert.throws(
      () => loadConfig({ LIMITS_CONCURRENT_GROUPS: 'stockFile,nope' }),
      /unknown request group "nope"/,
    );
    assert.deepEqual(loadConfig({ LIMITS_CONCURRENT_GROUPS: '' }).limitsConcurrentGroups, []);
  });
});
