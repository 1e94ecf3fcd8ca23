import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExpansion, createMetaproduct, createProduct, ensureGame } from './fixtures.js';
import {
  ApiClient,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  signedHeader,
  startTestServer,
  type TestServer,
  xmlValue,
} from './helpers.js';

const ids = (res: { json: { product: { idProduct: number }[] } }) => res.json.product.map((p) => p.idProduct);

for (const dialect of DIALECTS) {
  describe(`GET /products/find (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let widget: ApiClient;
    let harpy: number;
    let harpyPokemon: number;
    let urza: number;
    let jace: number;
    const goblins: number[] = [];

    before(async () => {
      server = await startTestServer({ dialect });
      ({ api } = await createTestClient(server));
      widget = new ApiClient(server, await createTestApp(server, await createTestUser(server), 'widget'));
      await ensureGame(server, 6);
      const exp = await createExpansion(server, { idGame: 1, enName: 'Born of the Gods' });
      const meta = await createMetaproduct(server, 'Shrike Harpy');
      harpy = (
        await createProduct(server, {
          idExpansion: exp,
          enName: 'Shrike Harpy',
          idMetaproduct: meta,
          names: { 2: 'Harpie grièche', 3: 'Würgerharpyie', 4: 'Arpía impía', 5: 'Arpia Avèrla' },
        })
      ).idProduct;
      harpyPokemon = (await createProduct(server, { idGame: 6, enName: 'Shrike Harpy Token' })).idProduct;
      urza = (await createProduct(server, { idExpansion: exp, enName: "Urza's Tower" })).idProduct;
      jace = (await createProduct(server, { idExpansion: exp, enName: 'Jace, the Mind Sculptor' })).idProduct;
      for (let i = 0; i < 120; i++) {
        goblins.push(
          (await createProduct(server, { idExpansion: exp, enName: `Goblin Raider ${i}` })).idProduct,
        );
      }
    });
    after(() => server.close());

    it('finds by the beginnings of words, any case and accents, in the list form', async () => {
      const res = await api.get('/products/find?search=shrike', { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res), [harpy, harpyPokemon]);
      assert.deepEqual(Object.keys(res.json), ['product', 'links']);
      assert.equal(res.json.product[0].expansionName, 'Born of the Gods');
      assert.deepEqual(res.json.links, [
        { rel: 'self', href: '/products/find?search=shrike', method: 'GET' },
      ]);
      assert.deepEqual(ids(await api.get('/products/find?search=HARP%20shri', { json: true })), [
        harpy,
        harpyPokemon,
      ]);
      assert.deepEqual(ids(await api.get('/products/find?search=urzas', { json: true })), [urza]);
      assert.deepEqual(
        ids(await api.get(`/products/find?search=${encodeURIComponent("Urza's T")}`, { json: true })),
        [urza],
      );
      assert.deepEqual(ids(await api.get('/products/find?search=jace%20mind', { json: true })), [jace]);
      // Words must start a word of the name: "rike" is inside "Shrike", not at its start.
      assert.equal((await api.get('/products/find?search=rike%20harpy', { json: true })).status, 204);
    });

    it('searches the names of the language given by idLanguage', async () => {
      assert.deepEqual(ids(await api.get('/products/find?search=grieche&idLanguage=2', { json: true })), [
        harpy,
      ]);
      assert.deepEqual(ids(await api.get('/products/find?search=W%C3%BCrger&idLanguage=3', { json: true })), [
        harpy,
      ]);
      assert.equal((await api.get('/products/find?search=grieche', { json: true })).status, 204);
      assert.equal((await api.get('/products/find?search=shrike&idLanguage=2', { json: true })).status, 204);
      const bad = await api.get('/products/find?search=shrike&idLanguage=7', { json: true });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.post_data_field, 'idLanguage');
    });

    it('narrows to one game with idGame', async () => {
      assert.deepEqual(ids(await api.get('/products/find?search=shrike&idGame=6', { json: true })), [
        harpyPokemon,
      ]);
      assert.deepEqual(ids(await api.get('/products/find?search=shrike&idGame=1', { json: true })), [harpy]);
    });

    it('exact=true matches the whole name only, and needs no 4 characters', async () => {
      assert.deepEqual(
        ids(await api.get('/products/find?search=shrike%20harpy&exact=true', { json: true })),
        [harpy],
      );
      assert.equal((await api.get('/products/find?search=shrike&exact=true', { json: true })).status, 204);
      assert.deepEqual(
        ids(await api.get('/products/find?search=arpia%20impia&exact=true&idLanguage=4', { json: true })),
        [harpy],
      );
      assert.equal((await api.get('/products/find?search=Jac&exact=true', { json: true })).status, 204);
    });

    it('refuses non-exact searches under 4 characters with the real API’s message (JSON and XML)', async () => {
      const res = await api.get('/products/find?search=Jac', { json: true });
      assert.equal(res.status, 400);
      assert.equal(
        res.json.mkm_error_description,
        'Provide a search string for non-exact searches with at least 4 characters.',
      );
      assert.equal(res.json.post_data_field, 'search');
      const xml = await api.get('/products/find?search=%20Jac%20');
      assert.equal(xml.status, 400);
      assert.equal(xmlValue(xml.text, 'post_data_field'), 'search');
      assert.equal((await api.get('/products/find', { json: true })).status, 400);
      assert.equal((await api.get('/products/find?search=shrike&exact=yes', { json: true })).status, 400);
    });

    it('answers 204 with no body when nothing matches', async () => {
      const res = await api.get('/products/find?search=nothinglikethis', { json: true });
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
    });

    it('redirects more than 100 unpaginated hits with 307 to a first page that verifies when signed anew', async () => {
      const res = await api.get('/products/find?search=goblin&idGame=1', { json: true });
      assert.equal(res.status, 307);
      const location = String(res.headers.location);
      assert.equal(
        location,
        'http://api.cardbazaar.test/ws/v2.0/output.json/products/find?search=goblin&idGame=1&start=0&maxResults=100',
      );
      const followed = await api.requestUrl('GET', location);
      assert.equal(followed.status, 206);
      assert.equal(followed.headers['content-range'], '0-99/120');
      assert.equal(followed.json.product.length, 100);
      // The old signature (for the first URL) does not open the new one: 403, sign it anew (spec §7).
      const replayed = await api.requestUrl('GET', location, {
        headers: {
          authorization: signedHeader(
            api.cred,
            'GET',
            api.url('/products/find?search=goblin&idGame=1', true),
          ),
        },
      });
      assert.equal(replayed.status, 403);
      assert.equal(JSON.parse(replayed.text).internal_error_code, 'redirect_not_resigned');
    });

    it('pages with start and maxResults: 206 with Content-Range, 200 for the whole, 400 above 100', async () => {
      const page = await api.get('/products/find?search=goblin&start=100&maxResults=50', { json: true });
      assert.equal(page.status, 206);
      assert.equal(page.headers['content-range'], '100-119/120');
      assert.equal(page.json.product.length, 20);
      const all = [
        ...ids(await api.get('/products/find?search=goblin&start=0&maxResults=100', { json: true })),
        ...ids(page),
      ];
      assert.deepEqual([...all].sort(), [...goblins].sort());
      const whole = await api.get('/products/find?search=shrike&start=0&maxResults=10', { json: true });
      assert.equal(whole.status, 200);
      assert.equal(
        (await api.get('/products/find?search=goblin&start=200&maxResults=10', { json: true })).status,
        204,
      );
      const big = await api.get('/products/find?search=goblin&start=0&maxResults=101', { json: true });
      assert.equal(big.status, 400);
      assert.equal(big.json.post_data_field, 'maxResults');
    });

    it('widget apps may search too (XML)', async () => {
      const res = await widget.get('/products/find?search=shrike%20harpy&exact=true');
      assert.equal(res.status, 200);
      assert.equal(xmlValue(res.text, 'idProduct'), String(harpy));
      assert.match(
        res.text,
        /<localization><name>Shrike Harpy<\/name><idLanguage>1<\/idLanguage><languageName>English<\/languageName><\/localization>/,
      );
    });
  });
}
