import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type FixtureRun, parseSteps, readFixtureFile, runFixture } from '../src/sandbox/fixtures.js';
import { runCli } from './cli-helpers.js';
import {
  ApiClient,
  countRows,
  DIALECTS,
  startFileTestServer,
  startTestServer,
  type TestServer,
} from './helpers.js';

/**
 * `cardbazaar fixtures run FILE`: the README's two example fixtures build what they say (checked
 * through the API, as a client sees it), and a failing fixture names its step and field and leaves
 * nothing of its run behind.
 */
const SHOP = resolve('examples/fixtures/shop.yaml');
const CATALOG = resolve('examples/fixtures/catalog.json');

type Created = Record<string, any>;

const client = (server: TestServer, cred: Created) =>
  new ApiClient(server, { ...cred, idUser: cred.idOwner } as never);

/** What a fixture run may leave behind, table by table. */
const TABLES = [
  'users',
  'apps',
  'accessTokens',
  'products',
  'articles',
  'orders',
  'reservations',
  'messages',
  'wantslists',
  'coupons',
] as const;

async function counts(server: TestServer) {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = await countRows(server, t);
  return out;
}

for (const dialect of DIALECTS) {
  describe(`fixtures run (${dialect})`, () => {
    let server: TestServer;
    let run: FixtureRun;
    before(async () => {
      server = await startTestServer({ dialect });
      const { steps, baseDir } = readFixtureFile(SHOP);
      run = await runFixture(server.services, steps, { baseDir });
    });
    after(() => server.close());

    it('the shop example: users, apps of every kind with working credentials, orders in every state', async () => {
      const c = run.created as Created;
      assert.deepEqual(Object.keys(c), [
        'seller',
        'buyer',
        'newcomer',
        'sellerTool',
        'priceWidget',
        'syncService',
        'bolt',
        'deed',
        'stock',
        'paid',
        'sent',
        'evaluated',
        'cancelled',
        'lost',
        'bought',
        'cart',
        'hello',
        'wants',
        'welcome',
      ]);
      assert.equal(c.seller.username, 'fx-seller');
      assert.equal(c.newcomer.sellerActivation, 0);

      const seller = client(server, c.sellerTool);
      const account = await seller.get('/account', { json: true });
      assert.equal(account.status, 200);
      assert.equal(account.json.account.username, 'fx-seller');
      assert.equal(account.json.account.isCommercial, 1);

      // The third-party app acts for the buyer; the widget app reaches the public marketplace.
      assert.equal(c.syncService.kind, 'thirdParty');
      const buyer = client(server, c.syncService);
      const buyerAccount = await buyer.get('/account', { json: true });
      assert.equal(buyerAccount.json.account.username, 'fx-buyer');
      assert.equal(buyerAccount.json.account.country, 'FR');
      // 5.00 from the coupon; the money balance paid the orders (200 less what is held or spent).
      assert.equal(buyerAccount.json.account.moneyDetails.bonusBalance, 5);
      assert.equal(c.priceWidget.accessToken, '');
      const product = await client(server, c.priceWidget).get(`/products/${c.bolt.idProduct}`, {
        json: true,
      });
      assert.equal(product.status, 200);
      assert.equal(product.json.product.enName, 'Lightning Bolt');

      const states: Record<string, string> = {
        bought: 'bought',
        paid: 'paid',
        sent: 'sent',
        evaluated: 'evaluated',
        cancelled: 'cancelled',
        lost: 'lost',
      };
      for (const [name, state] of Object.entries(states)) {
        const r = await seller.get(`/order/${c[name].idOrder}`, { json: true });
        assert.equal(r.status, 200, name);
        assert.equal(r.json.order.state.state, state, name);
        assert.equal(r.json.order.idOrder, c[name].idOrder);
      }
      const evaluated = await seller.get(`/order/${c.evaluated.idOrder}`, { json: true });
      assert.equal(evaluated.json.order.evaluation.evaluationGrade, 1);
      assert.equal(evaluated.json.order.evaluation.comment, 'Fast and well packed');
      const sent = await seller.get(`/order/${c.sent.idOrder}`, { json: true });
      assert.equal(sent.json.order.trackingNumber, 'RR123456785DE');

      const cart = await buyer.get('/shoppingcart', { json: true });
      assert.equal(cart.json.shoppingCart[0].article[0].count, 3);
      const messages = await seller.get(`/account/messages/${c.buyer.idUser}`, { json: true });
      assert.match(
        messages.json.message[0].text,
        new RegExp(`Hello fx-seller, is order ${c.paid.idOrder} on its way\\?`),
      );
      const wants = await buyer.get('/wantslist', { json: true });
      assert.equal(wants.json.wantslist[0].name, 'Modern staples');
      // 20 Bolts: 1 bought, 2 paid, 1 received, 1 cancelled (relisted? no: back only if asked), 3 in the cart.
      const stock = await seller.get(`/stock/article/${c.stock.articles[0].idArticle}`, { json: true });
      assert.equal(stock.status, 200);
    });

    it('a failing step names itself and its field, and the run leaves nothing behind', async () => {
      const before = await counts(server);
      const steps = parseSteps({
        steps: [
          { user: 'x1', username: 'fx-rollback-1', balance: '10.00' },
          { app: 'x1app', owner: 'x1', kind: 'dedicated' },
          { product: 'x1card', idProduct: 900900, name: 'Rolled Back' },
          {
            articles: 'x1stock',
            user: 'x1',
            items: [{ idProduct: '${x1card.idProduct}', count: 2, price: '1.00' }],
          },
          { user: 'x2', username: 'fx-rollback-2', balance: '10.00' },
          { message: 'x1hello', from: 'x1', to: 'x2', text: 'soon gone' },
          {
            order: 'x2order',
            buyer: 'x2',
            items: [{ idArticle: '${x1stock.idArticle}', count: 1 }],
            state: 'sent',
          },
          { order: 'tooMany', buyer: 'x2', items: [{ idArticle: '${x1stock.idArticle}', count: 5 }] },
        ],
      });
      await assert.rejects(runFixture(server.services, steps), (err: Error) => {
        assert.match(err.message, /^step 8 \(order "tooMany"\), field "items\[0\]": /);
        return true;
      });
      assert.deepEqual(await counts(server), before);

      const unknownRef = parseSteps({
        steps: [
          { user: 'y1', username: 'fx-rollback-3' },
          { articles: 'y1stock', user: 'y1', items: [{ idProduct: '${nothing.idProduct}', price: '1.00' }] },
        ],
      });
      await assert.rejects(
        runFixture(server.services, unknownRef),
        /^Error: step 2 \(articles "y1stock"\), field "items\[0\]\.idProduct": \$\{nothing\.idProduct\} refers to no earlier step/,
      );
      const badState = parseSteps({ steps: [{ user: 'y2', username: 'fx-rollback-4', type: 'tycoon' }] });
      await assert.rejects(
        runFixture(server.services, badState),
        /step 1 \(user "y2"\), field "type": Unknown account type/,
      );
      const typo = parseSteps({
        steps: [
          { user: 'y3', username: 'fx-rollback-5' },
          { articles: 'y3stock', user: 'y3', items: [{ idProduct: 1, prise: '1.00' }] },
        ],
      });
      await assert.rejects(
        runFixture(server.services, typo),
        /step 2 \(articles "y3stock"\), field "items\[0\]\.prise": unknown; this takes idProduct, count, price/,
      );
      assert.deepEqual(await counts(server), before);
    });
  });
}

describe('fixtures run (the command)', () => {
  let server: TestServer & { databaseUrl: string };
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-fixtures-'));
  before(async () => {
    server = await startFileTestServer();
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const cli = (...args: string[]) =>
    runCli('--database-url', server.databaseUrl, '--secret-key', server.services.serverKey, ...args);

  it('runs the catalog example (JSON, with an import file) beside a running server and prints credentials that work there', async () => {
    const r = await cli('fixtures', 'run', CATALOG);
    assert.equal(r.code, 0, r.err);
    const c = JSON.parse(r.out) as Created;
    assert.equal(c.cards.files[0].records, 2);
    assert.equal(c.purchase.state, 'received');
    const shop = client(server, c.shopTool);
    const sold = await shop.get(`/order/${c.purchase.idOrder}`, { json: true });
    assert.equal(sold.status, 200);
    assert.equal(sold.json.order.state.state, 'received');
    assert.equal(sold.json.order.article[0].product.enName, 'Fixture Dragon');
    const stock = await shop.get('/stock', { json: true });
    assert.deepEqual(
      stock.json.article.map((a: { idProduct: number; count: number }) => [a.idProduct, a.count]),
      [[900101, 4]],
    );
  });

  it('reports a bad file with the step and field, exit code 1, nothing written', async () => {
    const before = await counts(server);
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'steps:\n  - user: z1\n    username: fx-z1\n  - app: z1app\n    owner: z1\n    kind: gadget\n',
    );
    const r = await cli('fixtures', 'run', file);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /fixture .*bad\.yaml: step 2 \(app "z1app"\), field "kind": Unknown app kind "gadget"/,
    );
    assert.equal(r.out, '');
    assert.deepEqual(await counts(server), before);

    writeFileSync(file, 'steps:\n  - user: z1\n    usrname: typo\n');
    const typo = await cli('fixtures', 'run', file);
    assert.match(typo.err, /step 1 \(user "z1"\), field "usrname": unknown; a user step takes username/);
    writeFileSync(file, 'steps: [ {user: ');
    const broken = await cli('fixtures', 'run', file);
    assert.match(broken.err, /is not valid YAML/);
  });

  it('is refused in production', async () => {
    const r = await runCli(
      '--production',
      '--database-url',
      server.databaseUrl,
      '--secret-key',
      'a-production-secret-key-of-enough-length-0123',
      '--public-base-url',
      'https://api.example.org',
      'fixtures',
      'run',
      CATALOG,
    );
    assert.equal(r.code, 1);
    assert.match(r.err, /sandbox only: production refuses them/);
  });
});
