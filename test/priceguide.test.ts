import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createAccessToken } from '../src/auth/apps.js';
import { EVENTS } from '../src/domain/events.js';
import { refreshPriceGuide, refreshPriceGuideIfDue } from '../src/domain/priceguide.js';
import { appendEvent } from '../src/store/events.js';
import type { OrderState, User } from '../src/store/schema.js';
import { updateUser } from '../src/store/users.js';
import { createArticle, createProduct, ensureGame, type ProductFixture } from './fixtures.js';
import {
  ApiClient,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
} from './helpers.js';

const DAY = 86_400_000;

function csvRows(base64: string): string[][] {
  const text = gunzipSync(Buffer.from(base64, 'base64')).toString('utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(`[${line}]`) as string[]);
}

for (const dialect of DIALECTS) {
  describe(`the price guide (${dialect})`, () => {
    let server: TestServer;
    let pro: ApiClient;
    let privateApi: ApiClient;
    let widget: ApiClient;
    let thirdParty: ApiClient;
    let seller: User;
    let buyer: User;
    let card: ProductFixture;
    let quiet: ProductFixture;
    let importedOnly: ProductFixture;

    async function sale(state: OrderState, paidDaysAgo: number, lines: [number, number, number][]) {
      const db = server.services.database.db;
      const paid = server.clock.now() - paidDaysAgo * DAY;
      const order = await db
        .insertInto('orders')
        .values({
          idBuyer: buyer.idUser,
          idSeller: seller.idUser,
          state,
          dateBought: paid - 3_600_000,
          datePaid: state === 'bought' ? null : paid,
          dateSent: null,
          dateReceived: null,
          dateCancelled: null,
          dateLost: null,
          lastStateChange: paid,
          wasMergedInto: null,
          revision: 0,
          paidFromMoney: 0,
          paidFromBonus: 0,
          idShippingMethod: null,
          shippingMethodName: 'Letter',
          shippingPrice: 115,
          isLetter: 1,
          isInsured: 0,
          trackingNumber: null,
          shippingName: 'Buyer',
          shippingExtra: null,
          shippingStreet: 'Street 1',
          shippingZip: '10115',
          shippingCity: 'Berlin',
          shippingCountry: 'D',
          articleCount: lines.length,
          articleValue: 0,
          totalValue: 0,
          cancellationRequestBuyer: null,
          cancellationRequestSeller: null,
          relistOnCancel: 0,
          note: '',
        })
        .returning('idOrder')
        .executeTakeFirstOrThrow();
      let n = 0;
      for (const [idProduct, price, count, isFoil = 0] of lines.map((l) => [...l, 0] as number[])) {
        await db
          .insertInto('orderArticles')
          .values({
            idOrder: order.idOrder,
            idArticle: 1_000_000 + order.idOrder * 10 + n++,
            idProduct: idProduct!,
            idLanguage: 1,
            comments: '',
            price: price!,
            condition: 'NM',
            isFoil,
            isSigned: 0,
            isAltered: 0,
            isPlayset: 0,
            isFirstEd: 0,
            isReverseHolo: 0,
            count: count!,
          })
          .execute();
      }
      return order.idOrder;
    }

    before(async () => {
      server = await startTestServer({ dialect });
      const db = server.services.database.db;
      ({ api: pro, user: seller } = await createTestClient(server, {
        accountType: 'professional',
        country: 'D',
      }));
      ({ api: privateApi, user: buyer } = await createTestClient(server, {
        accountType: 'private',
        country: 'FR',
      }));
      widget = new ApiClient(server, await createTestApp(server, buyer, 'widget'));
      const third = await createTestApp(server, seller, 'thirdParty');
      const token = await createAccessToken(server.services, { idApp: third.idApp, idUser: buyer.idUser });
      thirdParty = new ApiClient(server, {
        ...third,
        accessToken: token.token,
        accessTokenSecret: token.secret,
        idUser: buyer.idUser,
      });
      card = await createProduct(server, { enName: 'Tarmogoyf' });
      quiet = await createProduct(server, { enName: 'Nobody Sells This' });
      importedOnly = await createProduct(server, { enName: 'Imported Only' });
      const frenchPrivate = await createTestUser(server, { country: 'FR' });
      const away = await createTestUser(server, { country: 'D', accountType: 'professional' });
      await updateUser(db, away.idUser, { onVacation: 1 });
      // Offers: LOW 8.00 (PL), LOWEX 10.00, LOWFOIL 30.00, LOWGERMAN 12.00 (the German professional).
      await createArticle(server, frenchPrivate, card, { price: 800, condition: 'PL', count: 1 });
      await createArticle(server, frenchPrivate, card, { price: 1000, condition: 'EX', count: 3 });
      await createArticle(server, seller, card, { price: 1200, count: 2 });
      await createArticle(server, seller, card, { price: 3000, isFoil: 1, count: 1 });
      await createArticle(server, away, card, { price: 100, count: 5 });
      // Sales: 20.00 ×1 today, 10.00 ×3 five days ago, 16.00 ×1 twenty days ago, 40.00 foil today;
      // a cancelled and an unpaid order do not count.
      await sale('received', 0.1, [[card.idProduct, 2000, 1]]);
      await sale('sent', 5, [[card.idProduct, 1000, 3]]);
      await sale('paid', 20, [[card.idProduct, 1600, 1]]);
      await sale('cancelled', 1, [[card.idProduct, 99_900, 1]]);
      await sale('bought', 1, [[card.idProduct, 99_900, 1]]);
      const foil = await sale('received', 0.2, [[card.idProduct, 4000, 1]]);
      await db.updateTable('orderArticles').set({ isFoil: 1 }).where('idOrder', '=', foil).execute();
      await db
        .insertInto('importedPriceGuides')
        .values([
          {
            idProduct: importedOnly.idProduct,
            sell: 150,
            low: 90,
            trend: 140,
            avg1: 155,
            avg7: 145,
            avg30: 141,
            sellFoil: null,
            lowFoil: 400,
            trendFoil: 500,
            foilAvg1: null,
            foilAvg7: null,
            foilAvg30: null,
            importedAt: 0,
          },
          {
            idProduct: card.idProduct,
            sell: 1,
            low: 1,
            trend: 1,
            avg1: 1,
            avg7: 1,
            avg30: 1,
            sellFoil: 1,
            lowFoil: 1,
            trendFoil: 1,
            foilAvg1: 1,
            foilAvg7: 1,
            foilAvg30: 1,
            importedAt: 0,
          },
        ])
        .execute();
      await refreshPriceGuide(server.services);
    });
    after(() => server.close());

    const guide = (idProduct: number) =>
      server.services.database.db
        .selectFrom('priceGuides')
        .selectAll()
        .where('idProduct', '=', idProduct)
        .executeTakeFirst();

    it('computes asking prices from current offers and sale prices from paid orders', async () => {
      const g = await guide(card.idProduct);
      assert.ok(g);
      assert.equal(g.low, 800);
      assert.equal(g.lowEx, 1000);
      assert.equal(g.lowFoil, 3000);
      assert.equal(g.lowGerman, 1200);
      // (800 + 3×1000 + 2×1200) / 6 copies
      assert.equal(g.avg, 1033);
      // (2000 + 3×1000 + 1600) / 5 copies
      assert.equal(g.sell, 1320);
      assert.equal(g.avg1, 2000);
      assert.equal(g.avg7, 1250);
      assert.equal(g.avg30, 1320);
      assert.equal(g.trend, 1250, 'the 7-day average');
      assert.equal(g.sellFoil, 4000);
      assert.equal(g.foilAvg1, 4000);
      assert.equal(g.trendFoil, 4000);
      assert.equal(g.suggested, null);
    });

    it('uses imported values only where the marketplace has none', async () => {
      const g = await guide(importedOnly.idProduct);
      assert.ok(g);
      assert.equal(g.sell, 150);
      assert.equal(g.low, 90);
      assert.equal(g.trend, 140);
      assert.equal(g.avg7, 145);
      assert.equal(g.lowFoil, 400);
      assert.equal(g.lowEx, null);
      assert.equal(g.avg, null);
      assert.equal(await guide(quiet.idProduct), undefined, 'nothing known, no guide');
    });

    it('shows on the product page', async () => {
      const res = await widget.get(`/products/${card.idProduct}`, { json: true });
      assert.deepEqual(res.json.product.priceGuide, {
        SELL: 13.2,
        LOW: 8,
        LOWEX: 10,
        LOWFOIL: 30,
        AVG: 10.33,
        TREND: 12.5,
        TRENDFOIL: 40,
      });
    });

    it('follows a sale as soon as its order changes state (event), before any scheduled refresh', async () => {
      const idOrder = await sale('paid', 0, [[quiet.idProduct, 500, 2]]);
      await server.services.database.transaction((tx) =>
        appendEvent(
          tx,
          EVENTS.orderStateChanged,
          { idOrder, from: 'bought', to: 'paid' },
          server.clock.now(),
        ),
      );
      await server.services.events.deliverPending();
      const g = await guide(quiet.idProduct);
      assert.equal(g?.sell, 500);
      assert.equal(g?.trend, 500);
    });

    it('follows a new or cheaper article as soon as it is listed (event)', async () => {
      const lister = await createTestUser(server);
      const article = await createArticle(server, lister, importedOnly, { price: 50 });
      await server.services.database.transaction((tx) =>
        appendEvent(tx, EVENTS.articleListed, { idArticle: article.idArticle }, server.clock.now()),
      );
      await server.services.events.deliverPending();
      const g = await guide(importedOnly.idProduct);
      assert.equal(g?.low, 50, 'its own offer now stands before the imported low');
      assert.equal(g?.avg, 50);
      assert.equal(g?.trend, 140, 'still the imported trend: no sales of its own');
    });

    it('refreshes on schedule only when the last refresh is as old as the interval', async () => {
      assert.equal(await refreshPriceGuideIfDue(server.services, 60), false);
      const seller2 = await createTestUser(server);
      await createArticle(server, seller2, quiet, { price: 300 });
      server.clock.advance(61 * 60_000);
      assert.equal(await refreshPriceGuideIfDue(server.services, 60), true);
      assert.equal((await guide(quiet.idProduct))?.low, 300);
    });

    it('GET /priceguide: a gzipped CSV with the real headers, for widget, third-party and professional apps', async () => {
      for (const client of [widget, thirdParty, pro]) {
        const res = await client.get('/priceguide?idGame=1', { json: true });
        assert.equal(res.status, 200, client.cred.kind);
        assert.deepEqual(Object.keys(res.json), ['priceguidefile', 'mime']);
        assert.equal(res.json.mime, 'application/x-gzip');
        const rows = csvRows(res.json.priceguidefile);
        assert.deepEqual(rows[0], [
          'idProduct',
          'Avg. Sell Price',
          'Low Price',
          'Trend Price',
          'German Pro Low',
          'Suggested Price',
          'Foil Sell',
          'Foil Low',
          'Foil Trend',
          'Low Price Ex+',
          'AVG1',
          'AVG7',
          'AVG30',
          'Foil AVG1',
          'Foil AVG7',
          'Foil AVG30',
        ]);
        const row = rows.find((r) => r[0] === String(card.idProduct));
        assert.deepEqual(row, [
          String(card.idProduct),
          '13.20',
          '8.00',
          '12.50',
          '12.00',
          '',
          '40.00',
          '30.00',
          '40.00',
          '10.00',
          '20.00',
          '12.50',
          '13.20',
          '40.00',
          '40.00',
          '40.00',
        ]);
      }
      const xml = await widget.get('/priceguide');
      assert.equal(xml.status, 200);
      assert.match(
        xml.text,
        /<priceguidefile>[A-Za-z0-9+/=]+<\/priceguidefile><mime>application\/x-gzip<\/mime>/,
      );
    });

    it('GET /priceguide refuses a private seller’s dedicated app with 403', async () => {
      const res = await privateApi.get('/priceguide', { json: true });
      assert.equal(res.status, 403);
      assert.equal(res.json.internal_error_code, 'price_guide_not_allowed');
      assert.equal((await widget.get('/priceguide?idGame=77', { json: true })).status, 404);
    });

    it('GET /productlist: the catalog as a gzipped CSV with the real headers', async () => {
      const res = await privateApi.get('/productlist', { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['productsfile', 'mime']);
      const rows = csvRows(res.json.productsfile);
      assert.deepEqual(rows[0], [
        'idProduct',
        'Name',
        'Category ID',
        'Category',
        'Expansion ID',
        'Metacard ID',
        'Date Added',
      ]);
      const row = rows.find((r) => r[0] === String(card.idProduct));
      assert.deepEqual(row, [
        String(card.idProduct),
        'Tarmogoyf',
        '1',
        'Magic Single',
        String(card.idExpansion),
        '',
        '2020-01-01 01:00:00',
      ]);
      assert.equal(rows.length, 4);
      await ensureGame(server, 6);
      const none = await widget.get('/productlist?idGame=6', { json: true });
      assert.equal(csvRows(none.json.productsfile).length, 1, 'only the header: no Pokémon products');
      assert.equal((await widget.get('/productlist?idGame=77', { json: true })).status, 404);
    });
  });
}
