import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { cardFace, faceInput } from '../src/web/images.js';
import { loadProductInfos } from '../src/store/products.js';
import { createProduct, type ProductFixture } from './fixtures.js';
import { startTestServer, type TestServer } from './helpers.js';

/**
 * Card pictures at the API's `image` paths (docs/using-the-website.md, "Card pictures"): a drawn
 * face for every product, the same bytes every time, with an ETag that answers 304; the operator's
 * file from IMAGE_DIR where there is one; nothing outside the folder.
 */
describe('card pictures', () => {
  let server: TestServer;
  let card: ProductFixture;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cardbazaar-images-'));
    server = await startTestServer({ config: { imageDir: dir } });
    card = await createProduct(server, { enName: 'Shivan <Dragon> & Co', rarity: 'Mythic' });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url, headers });

  it('draws a face at the path the API gives, an SVG with an ETag, the same bytes every time', async () => {
    // The path of the product's `image` field, as an API client downloading it would ask.
    const api = await server.app.inject({
      method: 'GET',
      url: `/img/items/${card.idGame}/${card.idProduct}.jpg`,
    });
    assert.equal(api.statusCode, 200);
    assert.equal(api.headers['content-type'], 'image/svg+xml');
    assert.match(String(api.headers['cache-control']), /max-age=\d+/);
    assert.equal(api.headers['x-content-type-options'], 'nosniff');
    const etag = String(api.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    assert.match(api.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // The name is text in the picture, escaped.
    assert.match(api.body, /Shivan &lt;Dragon&gt; &amp; Co/);
    // The rarity's colour frames it (mythic is orange-red).
    assert.match(api.body, /fill="#d9480f"/);
    const again = await get(`/img/items/${card.idGame}/${card.idProduct}.jpg`);
    assert.equal(again.body, api.body);
    assert.equal(again.headers.etag, etag);
    // The demo data's form of the path, with an expansion's abbreviation, names the same product.
    const other = await get(`/img/items/${card.idGame}/LEA/${card.idProduct}.jpg`);
    assert.equal(other.statusCode, 200);
    assert.equal(other.body, api.body);

    const cached = await get(`/img/items/${card.idGame}/${card.idProduct}.jpg`, { 'if-none-match': etag });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.body, '');
    const stale = await get(`/img/items/${card.idGame}/${card.idProduct}.jpg`, { 'if-none-match': '"nope"' });
    assert.equal(stale.statusCode, 200);
  });

  it('draws the same bytes from the same product, within 5 ms', async () => {
    const [info] = await loadProductInfos(server.services.database.db, [card.idProduct]);
    const input = faceInput(info!);
    const first = cardFace(input);
    assert.equal(cardFace({ ...input }), first);
    // A different product has a different picture.
    assert.notEqual(cardFace({ ...input, idProduct: input.idProduct + 1 }), first);
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) cardFace({ ...input, idProduct: 10_000 + i });
    const perFace = Number(process.hrtime.bigint() - start) / 20 / 1e6;
    assert.ok(perFace < 5, `a face took ${perFace} ms`);
  });

  it('serves the operator’s file from IMAGE_DIR, and nothing outside it', async () => {
    const own = await createProduct(server, { enName: 'Photographed Card' });
    mkdirSync(join(dir, 'items', String(own.idGame)), { recursive: true });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);
    writeFileSync(join(dir, 'items', String(own.idGame), `${own.idProduct}.jpg`), jpeg);
    const res = await get(`/img/items/${own.idGame}/${own.idProduct}.jpg`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/jpeg');
    assert.deepEqual(res.rawPayload, jpeg);
    const etag = String(res.headers.etag);
    assert.equal(
      (await get(`/img/items/${own.idGame}/${own.idProduct}.jpg`, { 'if-none-match': etag })).statusCode,
      304,
    );

    for (const url of [
      '/img/../package.json',
      '/img/items/%2e%2e/%2e%2e/1.jpg',
      '/img/items/1/abc.jpg',
      '/img/items/1/999999999.jpg',
    ]) {
      const refused = await get(url);
      assert.equal(refused.statusCode, 404, url);
      assert.doesNotMatch(String(refused.headers['content-type']), /^image\//, url);
    }
  });
});

describe('card pictures on an outside host (IMAGE_HOSTS)', () => {
  let server: TestServer;
  let admitted: ProductFixture;
  let elsewhere: ProductFixture;

  before(async () => {
    server = await startTestServer({ config: { imageHosts: ['cards.example.org'] } });
    admitted = await createProduct(server, { enName: 'Admitted Picture' });
    elsewhere = await createProduct(server, { enName: 'Elsewhere Picture' });
    const db = server.services.database.db;
    await db
      .updateTable('products')
      .set({ image: 'https://cards.example.org/lea/admitted.jpg' })
      .where('idProduct', '=', admitted.idProduct)
      .execute();
    await db
      .updateTable('products')
      .set({ image: 'https://pictures.example.net/elsewhere.jpg' })
      .where('idProduct', '=', elsewhere.idProduct)
      .execute();
  });
  after(() => server.close());

  it("shows an admitted host's picture from there, and admits that host in the page's img-src", async () => {
    const page = await server.app.inject({ method: 'GET', url: `/products/${admitted.idProduct}` });
    assert.equal(page.statusCode, 200, page.body.slice(0, 300));
    assert.match(
      page.body,
      /<img class="large" src="https:\/\/cards\.example\.org\/lea\/admitted\.jpg" alt="Admitted Picture"/,
    );
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /img-src 'self' data: https:\/\/cards\.example\.org;/);
  });

  it('draws its own face for a picture on any other host, which the policy does not admit', async () => {
    const page = await server.app.inject({ method: 'GET', url: `/products/${elsewhere.idProduct}` });
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /pictures\.example\.net/);
    assert.match(
      page.body,
      new RegExp(
        `<img class="large" src="/img/items/${elsewhere.idGame}/[^"]+/${elsewhere.idProduct}\\.jpg"`,
      ),
    );
    assert.doesNotMatch(String(page.headers['content-security-policy']), /pictures\.example\.net/);
  });

  it('reads the setting as host names, and refuses an address at start', () => {
    assert.deepEqual(loadConfig({ IMAGE_HOSTS: 'Cards.Example.org, img.example.net' }).imageHosts, [
      'cards.example.org',
      'img.example.net',
    ]);
    assert.deepEqual(loadConfig({}).imageHosts, []);
    assert.throws(() => loadConfig({ IMAGE_HOSTS: 'https://cards.example.org/' }), /host names/);
  });
});
