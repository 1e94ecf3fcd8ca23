import assert from 'node:assert/strict';
import type { Article } from '../src/store/schema.js';
import { updateUser } from '../src/store/users.js';
import { createArticle, createMetaproduct, createProduct, type ProductFixture } from './fixtures.js';
import { ApiClient, createTestApp, type DialectName, startTestServer, type TestServer } from './helpers.js';
import { createTrader, type Trader } from './trading-helpers.js';
import { assertShape, assertXmlMatchesJson, type Spec } from './conformance-shapes.js';
import { recordParity } from './parity-recorder.js';

/**
 * A small marketplace for the conformance suites: a professional seller with a company and a VAT
 * number, a private buyer, a widget app, and products of three games (a Magic card with a reprint
 * under one metaproduct and names in three languages, a Magic booster, a Yu-Gi-Oh! and a Pokémon
 * card) with the seller's articles of each.
 */
export interface World {
  server: TestServer;
  seller: Trader;
  buyer: Trader;
  widget: ApiClient;
  idMetaproduct: number;
  magic: ProductFixture;
  reprint: ProductFixture;
  sealed: ProductFixture;
  ygo: ProductFixture;
  pkm: ProductFixture;
  offers: { magic: Article; sealed: Article; ygo: Article; pkm: Article };
}

export async function buildWorld(dialect: DialectName): Promise<World> {
  const server = await startTestServer({ dialect });
  const seller = await createTrader(server, { name: 'shop' });
  await updateUser(server.services.database.db, seller.user.idUser, {
    isCommercial: 1,
    company: 'Card Shop GmbH',
    vat: 'DE123456789',
    legalInformation: 'Card Shop GmbH, Berlin',
  });
  const buyer = await createTrader(server, { name: 'buyer', balanceCents: 100_000 });
  const widget = new ApiClient(server, await createTestApp(server, buyer.user, 'widget'));
  const idMetaproduct = await createMetaproduct(server, 'Conformance Bolt');
  const magic = await createProduct(server, {
    enName: 'Conformance Bolt',
    idMetaproduct,
    names: { 2: 'Foudre conforme', 3: 'Konformer Blitz' },
  });
  const reprint = await createProduct(server, { enName: 'Conformance Bolt', idMetaproduct });
  const sealed = await createProduct(server, { enName: 'Conformance Booster', isSingle: false });
  const ygo = await createProduct(server, { enName: 'Conformance Dragon', idGame: 3 });
  const pkm = await createProduct(server, { enName: 'Conformance Mouse', idGame: 6 });
  const offers = {
    magic: await createArticle(server, seller.user, magic, {
      count: 10,
      price: 250,
      comments: 'mint',
      isFoil: 1,
    }),
    sealed: await createArticle(server, seller.user, sealed, { count: 4, price: 1999, condition: null }),
    ygo: await createArticle(server, seller.user, ygo, { count: 5, price: 50, isFirstEd: 1 }),
    pkm: await createArticle(server, seller.user, pkm, {
      count: 5,
      price: 75,
      isReverseHolo: 1,
      idLanguage: 7,
    }),
  };
  return { server, seller, buyer, widget, idMetaproduct, magic, reprint, sealed, ygo, pkm, offers };
}

/**
 * GETs a resource in JSON and in XML; asserts the status, the JSON against the spec and the XML
 * against the JSON (`values: false` where the first read changes what the second shows, e.g. marks
 * messages read). Returns the JSON body.
 */
export async function getBoth(
  api: ApiClient,
  path: string,
  spec: Spec,
  status = 200,
  { values = true } = {},
) {
  const json = await api.get(path, { json: true });
  assert.equal(json.status, status, `${path}: ${json.text}`);
  assertShape(json.json, spec);
  const xml = await api.get(path);
  assert.equal(xml.status, status, `${path} (XML): ${xml.text}`);
  assert.match(String(xml.headers['content-type']), /^application\/xml; charset=utf-8$/);
  assertXmlMatchesJson(xml.text, json.json, spec, { values });
  recordPinned(api, 'GET', path, path, status);
  return json;
}

/** Tells the parity recording that both formats of this answer were held to their entity's shape. */
function recordPinned(api: ApiClient, method: string, jsonPath: string, xmlPath: string, status: number) {
  const path = (p: string, json: boolean) => new URL(api.url(p, json)).pathname;
  recordParity(api.server.services, method, path(jsonPath, true), status, true);
  recordParity(api.server.services, method, path(xmlPath, false), status, true);
}

/**
 * A write answered in JSON and an equivalent one (`xmlBody`, or the same body) in XML: the JSON
 * against the spec, the XML against the JSON's tree (values may differ: ids, times).
 */
export async function writeBoth(
  api: ApiClient,
  method: string,
  path: string,
  body: string | undefined,
  spec: Spec,
  {
    xmlPath = path,
    xmlBody = body,
    status = 200,
  }: { xmlPath?: string; xmlBody?: string; status?: number } = {},
) {
  const json = await api.request(method, path, { json: true, body });
  assert.equal(json.status, status, `${method} ${path}: ${json.text}`);
  assertShape(json.json, spec);
  const xml = await api.request(method, xmlPath, { body: xmlBody });
  assert.equal(xml.status, status, `${method} ${xmlPath} (XML): ${xml.text}`);
  assertXmlMatchesJson(xml.text, json.json, spec, { values: false });
  recordPinned(api, method, path, xmlPath, status);
  return json;
}
