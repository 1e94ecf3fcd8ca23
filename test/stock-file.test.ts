import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { User } from '../src/store/schema.js';
import { createArticle, createArticles, createProduct, ensureGame, type ProductFixture } from './fixtures.js';
import {
  type ApiClient,
  createTestClient,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlValue,
} from './helpers.js';

/** A CSV as the stock file writes it: `;`-separated, every value quoted, `""` for a quote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let value = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        value += '"';
        i++;
      } else if (c === '"') quoted = false;
      else value += c;
    } else if (c === '"') quoted = true;
    else if (c === ';') {
      row.push(value);
      value = '';
    } else if (c === '\n') {
      row.push(value);
      rows.push(row);
      row = [];
      value = '';
    } else value += c;
  }
  if (value !== '' || row.length > 0) rows.push([...row, value]);
  return rows;
}

const BASE_HEADER = [
  'idArticle',
  'idProduct',
  'English Name',
  'Local Name',
  'Exp.',
  'Exp. Name',
  'Price',
  'Language',
  'Condition',
  'Foil?',
  'Signed?',
  'Playset?',
  'Altered?',
  'Comments',
  'Amount',
  'onSale',
  'idCurrency',
  'Currency Code',
];

for (const dialect of DIALECTS) {
  describe(`GET /stock/file (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let seller: User;
    let card: ProductFixture;
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api, user: seller } = await createTestClient(server));
      card = await createProduct(server, { enName: 'Shivan "Big" Dragon', names: { 3: 'Shivan-Drache' } });
    });
    after(() => server.close());

    const csvOf = (stock: string) => parseCsv(gunzipSync(Buffer.from(stock, 'base64')).toString('utf8'));

    it('answers the stock as base64 of a gzipped CSV with the reference columns (JSON)', async () => {
      const a = await createArticle(server, seller, card, {
        idLanguage: 3,
        price: 1250,
        count: 4,
        isFoil: 1,
        condition: 'EX',
        comments: 'a "quoted"; comment',
      });
      const res = await api.get('/stock/file', { json: true });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(Object.keys(res.json), ['stock', 'mime']);
      assert.equal(res.json.mime, 'application/x-gzip');
      const rows = csvOf(res.json.stock);
      assert.deepEqual(rows[0], BASE_HEADER);
      assert.equal(rows.length, 2);
      const row = Object.fromEntries(BASE_HEADER.map((h, i) => [h, rows[1]![i]]));
      assert.deepEqual(row, {
        idArticle: String(a.idArticle),
        idProduct: String(card.idProduct),
        'English Name': 'Shivan "Big" Dragon',
        'Local Name': 'Shivan-Drache',
        'Exp.': `X${card.idExpansion}`,
        'Exp. Name': `Expansion ${card.idExpansion}`,
        Price: '12.50',
        Language: '3',
        Condition: 'EX',
        'Foil?': 'X',
        'Signed?': '',
        'Playset?': '',
        'Altered?': '',
        Comments: 'a "quoted"; comment',
        Amount: '4',
        onSale: '1',
        idCurrency: '1',
        'Currency Code': 'EUR',
      });
    });

    it('answers the same document in XML', async () => {
      const res = await api.get('/stock/file');
      assert.equal(res.status, 200);
      assert.match(
        res.text,
        /^<\?xml version="1.0" encoding="UTF-8"\?>\n<response><stock>[A-Za-z0-9+/=]+<\/stock>/,
      );
      assert.equal(xmlValue(res.text, 'mime'), 'application/x-gzip');
      const rows = csvOf(xmlValue(res.text, 'stock')!);
      assert.equal(rows.length, 2);
    });

    it('filters by game, sealed product and language, with game-specific columns', async () => {
      const { api: shop, user } = await createTestClient(server);
      const ygo = await createProduct(server, { idGame: 3 });
      const booster = await createProduct(server, { isSingle: false });
      const single = await createArticle(server, user, card, { idLanguage: 1 });
      const german = await createArticle(server, user, card, { idLanguage: 3, price: 200 });
      const sealed = await createArticle(server, user, booster, { condition: null });
      const first = await createArticle(server, user, ygo, { isFirstEd: 1, isFoil: 0 });

      const col = (rows: string[][]) => rows.slice(1).map((r) => Number(r[0]));
      const get = async (q: string) => csvOf((await shop.get(`/stock/file${q}`, { json: true })).json.stock);
      assert.deepEqual(col(await get('')), [single.idArticle, german.idArticle]);
      assert.deepEqual(col(await get('?idGame=1&isSealed=false&idLanguage=3')), [german.idArticle]);
      assert.deepEqual(col(await get('?isSealed=true')), [sealed.idArticle]);
      const ygoRows = await get('?idGame=3');
      assert.deepEqual(ygoRows[0], [...BASE_HEADER, 'FirstEd?']);
      assert.deepEqual(col(ygoRows), [first.idArticle]);
      assert.equal(ygoRows[1]![BASE_HEADER.length], 'X');
      await ensureGame(server, 6);
      assert.deepEqual(await get('?idGame=6'), [[...BASE_HEADER, 'FirstEd?', 'Reverse Holo?']]);
    });

    it('refuses bad parameters with 400 naming them', async () => {
      for (const [q, field] of [
        ['?idGame=abc', 'idGame'],
        ['?idGame=0', 'idGame'],
        ['?isSealed=1', 'isSealed'],
        ['?idLanguage=-1', 'idLanguage'],
      ]) {
        const res = await api.get(`/stock/file${q}`, { json: true });
        assert.equal(res.status, 400, q);
        assert.equal(res.json.post_data_field, field);
      }
    });

    it('answers 404 for an unknown game and 400 for an unknown language, not an empty file', async () => {
      const game = await api.get('/stock/file?idGame=999', { json: true });
      assert.equal(game.status, 404, game.text);
      assert.equal(game.json.mkm_error_description, 'There is no game 999.');
      const language = await api.get('/stock/file?idLanguage=99', { json: true });
      assert.equal(language.status, 400, language.text);
      assert.equal(language.json.post_data_field, 'idLanguage');
    });

    it('streams a stock larger than a page, every article once, in id order', async () => {
      const { api: big, user } = await createTestClient(server);
      const rows = await createArticles(server, user, card, 2345, (i) => ({
        comments: `n${i}`,
        price: 100 + i,
      }));
      const res = await big.get('/stock/file', { json: true });
      const csv = csvOf(res.json.stock);
      assert.equal(csv.length, 2346);
      assert.deepEqual(
        csv.slice(1).map((r) => r[13]),
        rows.map((r) => r.comments),
      );
      const idsInFile = csv.slice(1).map((r) => Number(r[0]));
      assert.deepEqual(
        idsInFile,
        [...idsInFile].sort((a, b) => a - b),
      );
    });
  });
}
