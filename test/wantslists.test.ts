import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { User } from '../src/store/schema.js';
import { updateUser } from '../src/store/users.js';
import {
  createArticle,
  createMetaproduct,
  createProduct,
  ensureGame,
  type ProductFixture,
} from './fixtures.js';
import {
  type ApiClient,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlRequest,
  xmlValue,
} from './helpers.js';

const LIST_FIELDS = ['idWantslist', 'game', 'name', 'itemCount', 'links'];
const DETAIL_LIST_FIELDS = ['idWantslist', 'game', 'name', 'itemCount', 'item'];
const PRODUCT_WANT_FIELDS = [
  'idWant',
  'count',
  'wishPrice',
  'fromPrice',
  'mailAlert',
  'type',
  'idProduct',
  'product',
  'idLanguage',
  'minCondition',
  'isFoil',
  'isSigned',
  'isAltered',
];
const PRODUCT_FIELDS = [
  'idProduct',
  'idMetaproduct',
  'countReprints',
  'enName',
  'locName',
  'localization',
  'website',
  'image',
  'gameName',
  'categoryName',
  'idGame',
  'number',
  'rarity',
  'expansionName',
  'expansionIcon',
  'countArticles',
  'countFoils',
];

async function insertPriceGuide(server: TestServer, idProduct: number, sell: number | null) {
  await server.services.database.db
    .insertInto('priceGuides')
    .values({ idProduct, sell, updatedAt: server.clock.now() })
    .execute();
}

const productItem = (idProduct: number, inner = '') =>
  `<product><idProduct>${idProduct}</idProduct>${inner}</product>`;
const addItems = (...items: string[]) => xmlRequest(`<action>addItem</action>${items.join('')}`);
/** The list's own name (the game, before it, has a name too). */
const listName = (xml: string) => /<\/game><name>([^<]*)<\/name>/.exec(xml)?.[1];
const editItem = (idWant: string, inner: string) =>
  xmlRequest(`<action>editItem</action><want><idWant>${idWant}</idWant>${inner}</want>`);

for (const dialect of DIALECTS) {
  describe(`wants lists (${dialect})`, () => {
    let server: TestServer;
    let owner: { user: User; api: ApiClient };
    let other: { user: User; api: ApiClient };
    let seller: User;
    let idMeta: number;
    let p1: ProductFixture; // in the metaproduct, with a price guide and offers
    let p2: ProductFixture; // another printing of the same card
    let p3: ProductFixture; // no offers, no price guide
    let ygo: ProductFixture; // another game
    let idList: number;
    let idYgoList: number;

    before(async () => {
      server = await startTestServer({ dialect });
      owner = await createTestClient(server);
      other = await createTestClient(server);
      seller = await createTestUser(server);
      const onVacation = await createTestUser(server);
      await ensureGame(server, 1);
      await ensureGame(server, 3);
      idMeta = await createMetaproduct(server, 'Lightning Bolt');
      p1 = await createProduct(server, {
        enName: 'Lightning Bolt',
        idMetaproduct: idMeta,
        names: { 2: 'Foudre', 3: 'Blitzschlag' },
      });
      p2 = await createProduct(server, { enName: 'Lightning Bolt', idMetaproduct: idMeta });
      p3 = await createProduct(server, { enName: 'Black Lotus' });
      ygo = await createProduct(server, { idGame: 3, enName: 'Dark Magician' });
      await insertPriceGuide(server, p1.idProduct, 310);
      await insertPriceGuide(server, p2.idProduct, 280);
      await insertPriceGuide(server, p3.idProduct, null);
      // Offers of p1 and p2: what FROM and fromPrice choose among.
      await createArticle(server, seller, p1, { price: 120, idLanguage: 1, condition: 'NM', count: 2 });
      await createArticle(server, seller, p1, { price: 90, idLanguage: 3, condition: 'NM' });
      await createArticle(server, seller, p1, { price: 50, idLanguage: 1, condition: 'PL' });
      await createArticle(server, seller, p1, { price: 70, idLanguage: 1, condition: 'NM', isFoil: 1 });
      await createArticle(server, seller, p1, { price: 1, count: 0 }); // sold out
      await createArticle(server, onVacation, p1, { price: 10 });
      await createArticle(server, owner.user, p1, { price: 5 }); // one's own offer
      await createArticle(server, seller, p2, { price: 40, idLanguage: 1, condition: 'EX' });
      await updateUser(server.services.database.db, onVacation.idUser, { onVacation: 1 });
    });
    after(() => server.close());

    it('GET /wantslist with no lists is 204', async () => {
      const res = await owner.api.get('/wantslist');
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
    });

    it('POST /wantslist creates lists and reports the ones it cannot (XML)', async () => {
      const res = await owner.api.post(
        '/wantslist',
        xmlRequest(
          '<wantslist><idGame>1</idGame><name>Burn</name></wantslist>' +
            '<wantslist><idGame>9999</idGame><name>Nowhere</name></wantslist>' +
            '<wantslist><idGame>3</idGame><name>Duel</name></wantslist>' +
            '<wantslist><idGame>1</idGame><name>burn</name></wantslist>' +
            '<wantslist><idGame>1</idGame><name> </name></wantslist>',
        ),
      );
      assert.equal(res.status, 200, res.text);
      const lists = res.text.split('<wantslist>').slice(1);
      assert.equal(lists.length, 2);
      assert.equal(listName(lists[0]!), 'Burn');
      assert.equal(xmlValue(lists[0]!, 'itemCount'), '0');
      assert.match(
        lists[0]!,
        /<game><idGame>1<\/idGame><name>Magic the Gathering<\/name><abbreviation>MtG<\/abbreviation><\/game>/,
      );
      const failed = res.text.split('<failed>').slice(1);
      assert.equal(failed.length, 3);
      assert.match(xmlValue(failed[0]!, 'error')!, /no game 9999/);
      assert.equal(xmlValue(failed[0]!, 'idGame'), '9999');
      assert.match(xmlValue(failed[1]!, 'error')!, /already/);
      assert.equal(xmlValue(failed[1]!, 'name'), 'burn');
      assert.match(xmlValue(failed[2]!, 'error')!, /needs a name/);
      idList = Number(xmlValue(lists[0]!, 'idWantslist'));
      idYgoList = Number(xmlValue(lists[1]!, 'idWantslist'));
    });

    it('POST /wantslist (JSON) answers the created list; refuses a body without lists', async () => {
      const res = await owner.api.post(
        '/wantslist',
        xmlRequest('<wantslist><idGame>1</idGame><name>Spare</name></wantslist>'),
        { json: true },
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['wantslist']);
      assert.deepEqual(Object.keys(res.json.wantslist[0]), LIST_FIELDS);
      assert.equal(res.json.wantslist[0].name, 'Spare');
      const empty = await owner.api.post('/wantslist', xmlRequest('<name>x</name>'), { json: true });
      assert.equal(empty.status, 400);
      assert.equal(empty.json.post_data_field, 'wantslist');
      assert.equal((await owner.api.post('/wantslist', undefined)).status, 400);
    });

    it("GET /wantslist lists the caller's lists (JSON and XML)", async () => {
      const res = await owner.api.get('/wantslist', { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.json.wantslist.map((l: { name: string; game: { idGame: number } }) => [l.name, l.game.idGame]),
        [
          ['Burn', 1],
          ['Duel', 3],
          ['Spare', 1],
        ],
      );
      assert.deepEqual(res.json.wantslist[0].game, {
        idGame: 1,
        name: 'Magic the Gathering',
        abbreviation: 'MtG',
      });
      assert.deepEqual(res.json.wantslist[0].links, [
        { rel: 'self', href: `/wantslist/${idList}`, method: 'GET' },
      ]);
      const xml = await owner.api.get('/wantslist');
      assert.equal(xml.status, 200);
      assert.equal(xml.text.split('<wantslist>').length - 1, 3);
      assert.equal((await other.api.get('/wantslist')).status, 204);
    });

    it('PUT addItem adds a product with its filters; the list answers with its items (JSON)', async () => {
      const res = await owner.api.put(
        `/wantslist/${idList}`,
        addItems(
          productItem(
            p1.idProduct,
            '<count>4</count><wishPrice>2,00</wishPrice><mailAlert>true</mailAlert>' +
              '<idLanguage>1</idLanguage><idLanguage>3</idLanguage><minCondition>EX</minCondition>' +
              '<isFoil>false</isFoil><isSigned>null</isSigned>',
          ),
        ),
        { json: true },
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['wantslist', 'links']);
      assert.deepEqual(res.json.links, [
        { rel: 'self', href: `/wantslist/${idList}`, method: 'GET' },
        { rel: 'manage_items', href: `/wantslist/${idList}`, method: 'PUT' },
        { rel: 'delete_list', href: `/wantslist/${idList}`, method: 'DELETE' },
      ]);
      const list = res.json.wantslist;
      assert.deepEqual(Object.keys(list), DETAIL_LIST_FIELDS);
      assert.equal(list.itemCount, 1);
      const item = list.item[0];
      assert.deepEqual(Object.keys(item), PRODUCT_WANT_FIELDS);
      assert.match(item.idWant, /^[0-9a-f]{24}$/);
      assert.equal(item.count, 4);
      assert.equal(item.wishPrice, 2);
      // The cheapest offer the want accepts: English or German, EX or better, not foil, available,
      // from a seller not on vacation and not the owner: the German copy at 0.90.
      assert.equal(item.fromPrice, 0.9);
      assert.equal(item.mailAlert, true);
      assert.equal(item.type, 'product');
      assert.equal(item.idProduct, p1.idProduct);
      assert.deepEqual(item.idLanguage, [1, 3]);
      assert.equal(item.minCondition, 'EX');
      assert.equal(item.isFoil, false);
      assert.equal(item.isSigned, null);
      assert.equal(item.isAltered, null);
      assert.deepEqual(Object.keys(item.product), PRODUCT_FIELDS);
      assert.equal(item.product.enName, 'Lightning Bolt');
      assert.equal(item.product.idMetaproduct, idMeta);
      assert.equal(item.product.countReprints, 2);
      assert.equal(item.product.gameName, 'Magic the Gathering');
      // Available copies of sellers not on vacation (the owner's own copy counts: it is on sale).
      assert.equal(item.product.countArticles, 6);
      assert.equal(item.product.countFoils, 1);
      assert.deepEqual(item.product.localization.slice(0, 2), [
        { name: 'Lightning Bolt', idLanguage: 1, languageName: 'English' },
        { name: 'Foudre', idLanguage: 2, languageName: 'French' },
      ]);
    });

    it('PUT addItem adds a metaproduct (XML), with defaults for what is not given', async () => {
      const res = await owner.api.put(
        `/wantslist/${idList}`,
        addItems(`<metaproduct><idMetaproduct>${idMeta}</idMetaproduct></metaproduct>`),
      );
      assert.equal(res.status, 200, res.text);
      const items = res.text.split('<item>').slice(1);
      assert.equal(items.length, 2);
      const meta = items[1]!;
      assert.equal(xmlValue(meta, 'type'), 'metaproduct');
      assert.equal(xmlValue(meta, 'idMetaproduct'), String(idMeta));
      assert.equal(xmlValue(meta, 'count'), '1');
      assert.equal(xmlValue(meta, 'wishPrice'), '0.00');
      // Any printing, any language and condition: the PL copy of the other printing at 0.40.
      assert.equal(xmlValue(meta, 'fromPrice'), '0.40');
      assert.equal(xmlValue(meta, 'mailAlert'), 'false');
      assert.equal(xmlValue(meta, 'minCondition'), 'PO');
      assert.equal(xmlValue(meta, 'isFoil'), '');
      assert.match(meta, /<metaproduct><idMetaproduct>\d+<\/idMetaproduct><enName>Lightning Bolt<\/enName>/);
      // No languages: any. The list is still there, one empty element, as editItem takes it.
      assert.match(meta, /<\/metaproduct><idLanguage\/><minCondition>PO<\/minCondition>/);
      // The first item's repeated languages.
      assert.match(items[0]!, /<idLanguage>1<\/idLanguage><idLanguage>3<\/idLanguage>/);
    });

    it('GET /wantslist/:id answers the list with its items (XML and JSON)', async () => {
      const xml = await owner.api.get(`/wantslist/${idList}`);
      assert.equal(xml.status, 200);
      assert.match(xml.text, /^<\?xml[^>]*>\n<response><wantslist><idWantslist>/);
      assert.equal(xmlValue(xml.text, 'itemCount'), '2');
      const json = await owner.api.get(`/wantslist/${idList}`, { json: true });
      assert.equal(json.status, 200);
      assert.equal(json.json.wantslist.item.length, 2);
      assert.equal(json.json.wantslist.item[1].type, 'metaproduct');
      assert.deepEqual(Object.keys(json.json.wantslist.item[1].metaproduct), [
        'idMetaproduct',
        'enName',
        'locName',
        'localization',
        'image',
        'links',
      ]);
      const empty = await owner.api.get(`/wantslist/${idYgoList}`, { json: true });
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.json.wantslist.item, []);
    });

    describe('wish price codes', () => {
      let idWant: string;
      const wishOf = async () => {
        const res = await owner.api.get(`/wantslist/${idList}`, { json: true });
        return res.json.wantslist.item.find((i: { idWant: string }) => i.idWant === idWant).wishPrice;
      };
      before(async () => {
        const res = await owner.api.get(`/wantslist/${idList}`, { json: true });
        idWant = res.json.wantslist.item[0].idWant;
      });

      it('+0.02 and -0.37 raise and lower the current wish price', async () => {
        const up = await owner.api.put(
          `/wantslist/${idList}`,
          editItem(idWant, '<wishPrice>+0.02</wishPrice>'),
          {
            json: true,
          },
        );
        assert.equal(up.status, 200, up.text);
        assert.equal(up.json.wantslist.item[0].wishPrice, 2.02);
        const down = await owner.api.put(
          `/wantslist/${idList}`,
          editItem(idWant, '<wishPrice>-0,37</wishPrice>'),
        );
        assert.equal(down.status, 200);
        assert.equal(xmlValue(down.text, 'wishPrice'), '1.65');
      });

      it('90% sets that percentage, rounded half up to the cent', async () => {
        const res = await owner.api.put(
          `/wantslist/${idList}`,
          editItem(idWant, '<wishPrice>90%</wishPrice>'),
        );
        assert.equal(res.status, 200);
        assert.equal(await wishOf(), 1.49); // 1.65 × 0.9 = 1.485
      });

      it('FROM takes the lowest offer the want accepts now, with the filters as edited', async () => {
        const res = await owner.api.put(
          `/wantslist/${idList}`,
          editItem(idWant, '<wishPrice>FROM</wishPrice>'),
        );
        assert.equal(res.status, 200);
        assert.equal(await wishOf(), 0.9);
        // English only, any condition, foil or not: the PL copy at 0.50.
        const wider = await owner.api.put(
          `/wantslist/${idList}`,
          editItem(
            idWant,
            '<idLanguage>1</idLanguage><minCondition>PO</minCondition><isFoil>null</isFoil><wishPrice>FROM</wishPrice>',
          ),
          { json: true },
        );
        assert.equal(wider.status, 200, wider.text);
        assert.equal(wider.json.wantslist.item[0].wishPrice, 0.5);
        assert.deepEqual(wider.json.wantslist.item[0].idLanguage, [1]);
        assert.equal(wider.json.wantslist.item[0].isFoil, null);
        // Foils only: 0.70.
        await owner.api.put(
          `/wantslist/${idList}`,
          editItem(idWant, '<isFoil>true</isFoil><wishPrice>FROM</wishPrice>'),
        );
        assert.equal(await wishOf(), 0.7);
      });

      it('SELL takes the price guide average selling price (the lowest printing for a metaproduct)', async () => {
        const res = await owner.api.put(
          `/wantslist/${idList}`,
          editItem(idWant, '<wishPrice>SELL</wishPrice>'),
        );
        assert.equal(res.status, 200);
        assert.equal(await wishOf(), 3.1);
        const meta = await owner.api.put(
          `/wantslist/${idYgoList}`,
          addItems(productItem(ygo.idProduct, '<wishPrice>0.10</wishPrice>')),
        );
        assert.equal(meta.status, 200, meta.text);
        const spare = await owner.api.get('/wantslist', { json: true });
        const idSpare = spare.json.wantslist.find((l: { name: string }) => l.name === 'Spare').idWantslist;
        const added = await owner.api.put(
          `/wantslist/${idSpare}`,
          addItems(
            `<metaproduct><idMetaproduct>${idMeta}</idMetaproduct><wishPrice>SELL</wishPrice></metaproduct>`,
          ),
          { json: true },
        );
        assert.equal(added.status, 200, added.text);
        assert.equal(added.json.wantslist.item[0].wishPrice, 2.8);
        // A new item has no wish price: a relative code works from 0.
        const raised = await owner.api.put(
          `/wantslist/${idSpare}`,
          addItems(productItem(p3.idProduct, '<wishPrice>+0.25</wishPrice>')),
          {
            json: true,
          },
        );
        assert.equal(raised.status, 200, raised.text);
        assert.equal(raised.json.wantslist.item[1].wishPrice, 0.25);
      });

      it('a plain 0 clears the wish price', async () => {
        const res = await owner.api.put(`/wantslist/${idList}`, editItem(idWant, '<wishPrice>0</wishPrice>'));
        assert.equal(res.status, 200);
        assert.equal(await wishOf(), 0);
        await owner.api.put(`/wantslist/${idList}`, editItem(idWant, '<wishPrice>1.00</wishPrice>'));
        assert.equal(await wishOf(), 1);
      });

      it('codes that cannot resolve are a 400 naming the item, and change nothing', async () => {
        const cases: Array<[string, string, RegExp]> = [
          [editItem(idWant, '<wishPrice>-1.00</wishPrice>'), `<want> 1 (idWant ${idWant})`, /greater than 0/],
          [editItem(idWant, '<wishPrice>-2.00</wishPrice>'), `<want> 1 (idWant ${idWant})`, /greater than 0/],
          [editItem(idWant, '<wishPrice>0%</wishPrice>'), `<want> 1 (idWant ${idWant})`, /greater than 0/],
          [
            editItem(idWant, '<wishPrice>cheap</wishPrice>'),
            `<want> 1 (idWant ${idWant})`,
            /not a wish price/,
          ],
          [
            editItem(idWant, '<idLanguage>9</idLanguage><wishPrice>FROM</wishPrice>'),
            `<want> 1 (idWant ${idWant})`,
            /FROM cannot be resolved/,
          ],
          [
            addItems(productItem(p3.idProduct, '<wishPrice>FROM</wishPrice>')),
            `<product> 1 (idProduct ${p3.idProduct})`,
            /FROM/,
          ],
          [
            addItems(productItem(p3.idProduct, '<wishPrice>SELL</wishPrice>')),
            `<product> 1 (idProduct ${p3.idProduct})`,
            /SELL/,
          ],
          [
            addItems(productItem(p3.idProduct, '<wishPrice>90%</wishPrice>')),
            `<product> 1 (idProduct ${p3.idProduct})`,
            /greater than 0/,
          ],
          [
            addItems(productItem(p3.idProduct, '<wishPrice>-0.37</wishPrice>')),
            `<product> 1 (idProduct ${p3.idProduct})`,
            /greater than 0/,
          ],
        ];
        for (const [body, label, reason] of cases) {
          const res = await owner.api.put(`/wantslist/${idList}`, body, { json: true });
          assert.equal(res.status, 400, body);
          assert.equal(res.json.post_data_field, 'wishPrice', body);
          assert.ok(res.json.mkm_error_description.startsWith(`${label}: `), res.json.mkm_error_description);
          assert.match(res.json.mkm_error_description, reason);
        }
        const after = await owner.api.get(`/wantslist/${idList}`, { json: true });
        assert.equal(after.json.wantslist.itemCount, 2);
        assert.equal(await wishOf(), 1);
        assert.deepEqual(after.json.wantslist.item[0].idLanguage, [1]);
      });

      it('names the failing item among several, and writes none of them', async () => {
        const res = await owner.api.put(
          `/wantslist/${idList}`,
          addItems(productItem(p1.idProduct), productItem(p3.idProduct, '<wishPrice>FROM</wishPrice>')),
          { json: true },
        );
        assert.equal(res.status, 400);
        assert.match(
          res.json.mkm_error_description,
          new RegExp(`^<product> 2 \\(idProduct ${p3.idProduct}\\)`),
        );
        const after = await owner.api.get(`/wantslist/${idList}`, { json: true });
        assert.equal(after.json.wantslist.itemCount, 2);
      });
    });

    it('refuses products of another game, unknown products and metaproducts', async () => {
      const cases: Array<[string, string, RegExp]> = [
        [addItems(productItem(ygo.idProduct)), 'idProduct', /not a Magic the Gathering product/],
        [addItems(productItem(123456789)), 'idProduct', /no product 123456789/],
        [
          addItems('<metaproduct><idMetaproduct>987654</idMetaproduct></metaproduct>'),
          'idMetaproduct',
          /no metaproduct/,
        ],
        [addItems(productItem(0)), 'idProduct', /at least 1/],
        [addItems('<product><count>1</count></product>'), 'idProduct', /required/],
      ];
      for (const [body, field, reason] of cases) {
        const res = await owner.api.put(`/wantslist/${idList}`, body, { json: true });
        assert.equal(res.status, 400, body);
        assert.equal(res.json.post_data_field, field, body);
        assert.match(res.json.mkm_error_description, /^<product> 1|^<metaproduct> 1/);
        assert.match(res.json.mkm_error_description, reason);
      }
      const metaOfMagic = await owner.api.put(
        `/wantslist/${idYgoList}`,
        addItems(`<metaproduct><idMetaproduct>${idMeta}</idMetaproduct></metaproduct>`),
        { json: true },
      );
      assert.equal(metaOfMagic.status, 400);
      assert.match(metaOfMagic.json.mkm_error_description, /has no Yu-Gi-Oh! products/);
    });

    it('refuses bad item fields with a 400 naming the field', async () => {
      const cases: Array<[string, string]> = [
        [productItem(p1.idProduct, '<count>0</count>'), 'count'],
        [productItem(p1.idProduct, '<count>many</count>'), 'count'],
        [productItem(p1.idProduct, '<idLanguage>99</idLanguage>'), 'idLanguage'],
        [productItem(p1.idProduct, '<minCondition>XX</minCondition>'), 'minCondition'],
        [productItem(p1.idProduct, '<mailAlert>yes</mailAlert>'), 'mailAlert'],
        [productItem(p1.idProduct, '<isFoil>True</isFoil>'), 'isFoil'],
        // Magic cards have no first editions.
        [productItem(p1.idProduct, '<isFirstEd>true</isFirstEd>'), 'isFirstEd'],
      ];
      for (const [item, field] of cases) {
        const res = await owner.api.put(`/wantslist/${idList}`, addItems(item), { json: true });
        assert.equal(res.status, 400, item);
        assert.equal(res.json.post_data_field, field, item);
      }
      const noItems = await owner.api.put(`/wantslist/${idList}`, xmlRequest('<action>addItem</action>'), {
        json: true,
      });
      assert.equal(noItems.status, 400);
      assert.equal(noItems.json.post_data_field, 'product');
    });

    it('editItem changes only what it names; editWantslist renames; unknown actions and ids are 400', async () => {
      const before = await owner.api.get(`/wantslist/${idList}`, { json: true });
      const item = before.json.wantslist.item[0];
      const res = await owner.api.put(
        `/wantslist/${idList}`,
        editItem(item.idWant, '<count>7</count><mailAlert>false</mailAlert>'),
        { json: true },
      );
      assert.equal(res.status, 200, res.text);
      const edited = res.json.wantslist.item[0];
      assert.equal(edited.count, 7);
      assert.equal(edited.mailAlert, false);
      assert.equal(edited.wishPrice, item.wishPrice);
      assert.deepEqual(edited.idLanguage, item.idLanguage);
      assert.equal(edited.minCondition, item.minCondition);

      const renamed = await owner.api.put(
        `/wantslist/${idList}`,
        xmlRequest('<action>editWantslist</action><name>Burn it all</name>'),
      );
      assert.equal(renamed.status, 200);
      assert.equal(listName(renamed.text), 'Burn it all');
      const taken = await owner.api.put(
        `/wantslist/${idList}`,
        xmlRequest('<action>editWantslist</action><name>SPARE</name>'),
        {
          json: true,
        },
      );
      assert.equal(taken.status, 400);
      assert.equal(taken.json.post_data_field, 'name');

      const cases: Array<[string, string]> = [
        [xmlRequest('<action>shuffle</action>'), 'action'],
        [xmlRequest('<name>x</name>'), 'action'],
        [editItem('0'.repeat(24), '<count>2</count>'), 'idWant'],
        [editItem('nope', '<count>2</count>'), 'idWant'],
        [xmlRequest(`<action>deleteItem</action><want><idWant>${'f'.repeat(24)}</idWant></want>`), 'idWant'],
      ];
      for (const [body, field] of cases) {
        const bad = await owner.api.put(`/wantslist/${idList}`, body, { json: true });
        assert.equal(bad.status, 400, body);
        assert.equal(bad.json.post_data_field, field, body);
      }
    });

    it("another user's lists are as unknown as missing ones", async () => {
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', xmlRequest('<action>editWantslist</action><name>Mine now</name>')],
        ['DELETE', undefined],
      ] as const) {
        const res = await other.api.request(method, `/wantslist/${idList}`, { json: true, body });
        assert.equal(res.status, 404, method);
        assert.ok(!res.text.includes('Burn'));
      }
      const items = await other.api.put(`/wantslist/${idList}`, addItems(productItem(p1.idProduct)));
      assert.equal(items.status, 404);
      const still = await owner.api.get(`/wantslist/${idList}`, { json: true });
      assert.equal(still.json.wantslist.name, 'Burn it all');
      assert.equal(still.json.wantslist.itemCount, 2);
      assert.equal((await owner.api.get('/wantslist/99999999')).status, 404);
      assert.equal((await owner.api.get('/wantslist/abc')).status, 400);
    });

    it('deleteItem removes items (JSON)', async () => {
      const before = await owner.api.get(`/wantslist/${idList}`, { json: true });
      const [first, second] = before.json.wantslist.item;
      const res = await owner.api.put(
        `/wantslist/${idList}`,
        xmlRequest(`<action>deleteItem</action><want><idWant>${first.idWant}</idWant></want>`),
        { json: true },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.wantslist.itemCount, 1);
      assert.equal(res.json.wantslist.item[0].idWant, second.idWant);
    });

    it('DELETE /wantslist/:id deletes the list and its items, answering the lists left (XML and JSON)', async () => {
      const xml = await owner.api.delete(`/wantslist/${idYgoList}`);
      assert.equal(xml.status, 200, xml.text);
      assert.ok(!xml.text.includes('<name>Duel</name>'));
      assert.equal(xml.text.split('<wantslist>').length - 1, 2);
      assert.equal((await owner.api.get(`/wantslist/${idYgoList}`)).status, 404);
      const json = await owner.api.delete(`/wantslist/${idList}`, undefined, { json: true });
      assert.equal(json.status, 200);
      assert.deepEqual(
        json.json.wantslist.map((l: { name: string }) => l.name),
        ['Spare'],
      );
      const rows = await server.services.database.db
        .selectFrom('wants')
        .select('idWantslist')
        .where('idWantslist', 'in', [idList, idYgoList])
        .execute();
      assert.equal(rows.length, 0);
    });

    it('is open to dedicated and third-party apps, closed to widget apps', async () => {
      const widget = await createTestClient(server, { kind: 'widget' });
      assert.equal((await widget.api.get('/wantslist')).status, 403);
      assert.equal(
        (
          await widget.api.post(
            '/wantslist',
            xmlRequest('<wantslist><idGame>1</idGame><name>x</name></wantslist>'),
          )
        ).status,
        403,
      );
    });
  });
}
