import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Migrator } from 'kysely';
import { sellerActivationStatus } from '../src/domain/seller-activation.js';
import { createUser } from '../src/domain/users.js';
import { openDatabase } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { migrations } from '../src/store/migrations/index.js';
import { runCli } from './cli-helpers.js';
import { createProduct, type ProductFixture } from './fixtures.js';
import {
  ApiClient,
  countRows,
  createTestApp,
  DIALECTS,
  startFileTestServer,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';

/**
 * Seller activation (reference §1.2, §2.1): 0 → POST bank details → 1 → the next marketplace day →
 * 2 → PUT the two transfers' amounts → 3, and only then may a user sell.
 */

const DAY = 86_400_000;
const BANK = {
  bankAccountOwner: 'Erika Mustermann',
  iban: 'DE89 3704 0044 0532 0130 00',
  bic: 'COBADEFFXXX',
  bankName: 'Commerzbank',
  phoneNumber: '+49 30 1234567',
};
const bankXml = (fields: Partial<typeof BANK> = {}) =>
  xmlRequest(
    Object.entries({ ...BANK, ...fields })
      .map(([k, v]) => `<${k}>${v}</${k}>`)
      .join(''),
  );
const amountsXml = (a: string, b: string) => xmlRequest(`<amount1>${a}</amount1><amount2>${b}</amount2>`);
const euros = (cents: number) => (cents / 100).toFixed(2);

for (const dialect of DIALECTS) {
  describe(`seller activation (${dialect})`, () => {
    let server: TestServer;
    let product: ProductFixture;
    let seq = 0;
    before(async () => {
      server = await startTestServer({ dialect });
      product = await createProduct(server, { enName: 'Activation Card' });
    });
    after(() => server.close());

    /** A user who registered (not activated), with a dedicated app. */
    async function newcomer() {
      const user = await createUser(server.services, {
        username: `newcomer${++seq}`,
        country: 'D',
        accountType: 'private',
        sellerActivation: 0,
      });
      return { user, api: new ApiClient(server, await createTestApp(server, user)) };
    }
    const account = async (api: ApiClient) => (await api.get('/account', { json: true })).json.account;
    const newArticle = xmlRequest(
      `<article><idProduct>${0}</idProduct><count>1</count><price>1.00</price></article>`,
    );
    const sell = (api: ApiClient) =>
      api.post('/stock', newArticle.replace('<idProduct>0', `<idProduct>${product.idProduct}`), {
        json: true,
      });

    /** Requests the activation and moves the clock to the day the transfers arrive. */
    async function withTransfers(api: ApiClient, idUser: number): Promise<[number, number]> {
      assert.equal((await api.post('/account/selleractivation', bankXml())).status, 200);
      server.clock.advance(DAY);
      const status = await sellerActivationStatus(server.services, idUser);
      assert.equal(status.sellerActivation, 2);
      return status.transfers!;
    }

    it('a new account that is not activated may not sell: 403 seller_not_activated, nothing written', async () => {
      const { api } = await newcomer();
      const a = await account(api);
      assert.equal(a.sellerActivation, 0);
      assert.equal(a.maySell, false);
      const before = await countRows(server, 'articles');
      const res = await sell(api);
      assert.equal(res.status, 403, res.text);
      assert.equal(res.json.internal_error_code, 'seller_not_activated');
      assert.match(res.json.mkm_error_description, /seller activation/);
      const increase = await api.put(
        '/stock/increase',
        xmlRequest('<article><idArticle>1</idArticle><count>1</count></article>'),
        { json: true },
      );
      assert.equal(increase.status, 403);
      assert.equal(await countRows(server, 'articles'), before);
    });

    it('POST records the bank details (0 → 1); the next marketplace day brings 2; PUT with the amounts activates', async () => {
      const { user, api } = await newcomer();
      const req = await api.post('/account/selleractivation', bankXml(), { json: true });
      assert.equal(req.status, 200, req.text);
      assert.equal(req.json.account.sellerActivation, 1);
      assert.equal(req.json.account.maySell, false);
      assert.deepEqual(req.json.account.bankAccount, {
        accountOwner: 'Erika Mustermann',
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
        bankName: 'Commerzbank',
      });
      assert.equal(req.json.account.phoneNumber, '+49 30 1234567');
      assert.ok(req.json.message);

      const early = await api.put('/account/selleractivation', amountsXml('0.01', '0.02'), { json: true });
      assert.equal(early.status, 412);
      assert.match(early.json.mkm_error_description, /not arrived yet/);
      assert.equal((await sellerActivationStatus(server.services, user.idUser)).transfers, null);

      server.clock.advance(DAY);
      assert.equal((await account(api)).sellerActivation, 2);
      const { transfers } = await sellerActivationStatus(server.services, user.idUser);
      const [t1, t2] = transfers!;
      assert.ok(t1 >= 1 && t1 <= 99 && t2 >= 1 && t2 <= 99 && t1 !== t2);

      // Either order, a comma or a dot.
      const done = await api.put(
        '/account/selleractivation',
        amountsXml(euros(t2).replace('.', ','), euros(t1)),
        { json: true },
      );
      assert.equal(done.status, 200, done.text);
      assert.equal(done.json.account.sellerActivation, 3);
      assert.equal(done.json.account.maySell, true);
      assert.equal((await sell(api)).status, 200);
      const again = await api.post('/account/selleractivation', bankXml(), { json: true });
      assert.equal(again.status, 412);
      assert.match(again.json.mkm_error_description, /activated as a seller already/);
    });

    it('wrong amounts answer 400; the fifth wrong answer starts the activation over', async () => {
      const { user, api } = await newcomer();
      const [t1, t2] = await withTransfers(api, user.idUser);
      const wrong = euros(t1 === 99 ? 98 : t1 + 1 === t2 ? t1 + 2 : t1 + 1);
      for (let i = 1; i <= 4; i++) {
        const res = await api.put('/account/selleractivation', amountsXml(wrong, euros(t2)), { json: true });
        assert.equal(res.status, 400);
        assert.equal(res.json.post_data_field, 'amount1');
        assert.match(res.json.mkm_error_description, new RegExp(`${5 - i} tries left`));
      }
      const last = await api.put('/account/selleractivation', amountsXml(wrong, euros(t2)), { json: true });
      assert.equal(last.status, 400);
      assert.match(last.json.mkm_error_description, /starts over/);
      const a = await account(api);
      assert.equal(a.sellerActivation, 0);
      const late = await api.put('/account/selleractivation', amountsXml(euros(t1), euros(t2)), {
        json: true,
      });
      assert.equal(late.status, 412, 'the old amounts are no good any more');
      assert.match(late.json.mkm_error_description, /No seller activation was requested/);
    });

    it('refuses bad bank details with 400 naming the field, and malformed amounts', async () => {
      const { api } = await newcomer();
      const cases: Array<[Partial<typeof BANK>, string]> = [
        [{ iban: 'DE00 3704 0044 0532 0130 00' }, 'iban'],
        [{ iban: 'not an iban' }, 'iban'],
        [{ bic: 'COBA' }, 'bic'],
        [{ bankAccountOwner: '' }, 'bankAccountOwner'],
        [{ bankName: '' }, 'bankName'],
        [{ phoneNumber: 'call me' }, 'phoneNumber'],
      ];
      for (const [fields, field] of cases) {
        const res = await api.post('/account/selleractivation', bankXml(fields), { json: true });
        assert.equal(res.status, 400, `${field}: ${res.text}`);
        assert.equal(res.json.post_data_field, field);
      }
      assert.equal((await api.post('/account/selleractivation', undefined, { json: true })).status, 400);
      assert.equal((await account(api)).sellerActivation, 0, 'nothing was recorded');
      await api.post('/account/selleractivation', bankXml());
      server.clock.advance(DAY);
      for (const body of [xmlRequest('<amount1>0.10</amount1>'), amountsXml('ten', '0.10')]) {
        const res = await api.put('/account/selleractivation', body, { json: true });
        assert.equal(res.status, 400, res.text);
      }
    });

    it('answers in XML too, and is not for widget apps', async () => {
      const { user, api } = await newcomer();
      const xml = await api.post('/account/selleractivation', bankXml());
      assert.equal(xml.status, 200);
      assert.match(xml.text, /<sellerActivation>1<\/sellerActivation>/);
      assert.match(xml.text, /<iban>DE89370400440532013000<\/iban>/);
      server.clock.advance(DAY);
      const [t1, t2] = (await sellerActivationStatus(server.services, user.idUser)).transfers!;
      const done = await api.put('/account/selleractivation', amountsXml(euros(t1), euros(t2)));
      assert.equal(done.status, 200, done.text);
      assert.match(String(done.headers['content-type']), /^application\/xml/);
      assert.match(done.text, /<sellerActivation>3<\/sellerActivation>/);
      assert.match(done.text, /<maySell>true<\/maySell>/);
      const widget = new ApiClient(server, await createTestApp(server, user, 'widget'));
      assert.equal((await widget.post('/account/selleractivation', bankXml())).status, 403);
    });
  });
}

describe('seller activation from the command line (sqlite file)', () => {
  let server: TestServer & { databaseUrl: string };
  before(async () => {
    server = await startFileTestServer();
  });
  after(() => server.close());
  const cli = (...args: string[]) => runCli('--database-url', server.databaseUrl, ...args);

  it('user create starts activated unless --seller-activation 0; user activation shows the transfers', async () => {
    const shop = JSON.parse((await cli('user', 'create', '--username', 'clishop')).out);
    assert.equal(shop.sellerActivation, 3);
    assert.equal(shop.maySell, true);
    const created = await cli('user', 'create', '--username', 'clinew', '--seller-activation', '0');
    assert.equal(created.code, 0, created.err);
    assert.equal(JSON.parse(created.out).sellerActivation, 0);
    assert.equal(JSON.parse(created.out).maySell, false);
    const bad = await cli('user', 'create', '--username', 'clibad', '--seller-activation', '2');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /0 \(not activated\) or 3 \(activated\)/);

    const none = JSON.parse((await cli('user', 'activation', 'clinew')).out);
    assert.equal(none.sellerActivation, 0);
    assert.equal(none.transfers, null);

    const user = (await server.services.database.db
      .selectFrom('users')
      .selectAll()
      .where('username', '=', 'clinew')
      .executeTakeFirstOrThrow()) as never;
    const api = new ApiClient(server, await createTestApp(server, user));
    assert.equal((await api.post('/account/selleractivation', bankXml())).status, 200);
    const pending = JSON.parse((await cli('user', 'activation', 'clinew')).out);
    assert.equal(pending.sellerActivation, 1);
    assert.equal(pending.transfers, null);
    assert.match(pending.transfersAt, /T00:00:00\+0[12]00$/, 'the next Berlin midnight');
    assert.equal(pending.bankAccount.iban, 'DE89370400440532013000');

    // The sandbox clock, moved by the command, brings the transfers.
    assert.equal((await cli('clock', 'advance', '1d')).code, 0);
    server.clock.advance(DAY);
    const made = JSON.parse((await cli('user', 'activation', 'clinew')).out);
    assert.equal(made.sellerActivation, 2);
    assert.equal(made.transfers.length, 2);
    assert.match(made.transfers[0], /^0\.\d\d EUR$/);
    const [a, b] = made.transfers.map((t: string) => t.replace(' EUR', ''));
    const done = await api.put('/account/selleractivation', amountsXml(a, b), { json: true });
    assert.equal(done.status, 200, done.text);
    assert.equal(JSON.parse((await cli('user', 'activation', 'clinew')).out).sellerActivation, 3);
  });
});

describe('the seller activation migration', () => {
  it('keeps the users already in the database as they are', async () => {
    const database = openDatabase(':memory:');
    try {
      const names = Object.keys(migrations).sort();
      const before = names[names.indexOf('0008_3_seller_activation') - 1]!;
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: async () => migrations },
        allowUnorderedMigrations: true,
      });
      const first = await migrator.migrateTo(before);
      assert.equal(first.error, undefined);
      for (const [username, state, maySell] of [
        ['seller', 3, 1],
        ['buyer', 0, 0],
      ] as const) {
        await database.db
          .insertInto('users')
          .values({ username, country: 'D', registerDate: 0, sellerActivation: state, maySell } as never)
          .execute();
      }
      await migrateToLatest(database);
      const rows = await database.db
        .selectFrom('users')
        .select(['username', 'sellerActivation', 'maySell'])
        .orderBy('username')
        .execute();
      assert.deepEqual(rows, [
        { username: 'buyer', sellerActivation: 0, maySell: 0 },
        { username: 'seller', sellerActivation: 3, maySell: 1 },
      ]);
    } finally {
      await database.close();
    }
  });
});
