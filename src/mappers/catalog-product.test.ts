import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledTree, toXml, toXmlBuffer } from '../http/xml.js';
import type { ProductInfo } from '../store/products.js';
import { mapProductListed, mapProductsListed } from './catalog-product.js';

function info(idProduct: number, overrides: Partial<ProductInfo> = {}, product = {}): ProductInfo {
  return {
    product: {
      idProduct,
      idGame: idProduct % 2 === 0 ? 1 : 6,
      idExpansion: idProduct % 3 === 0 ? null : 12,
      idMetaproduct: idProduct % 4 === 0 ? null : 900 + idProduct,
      idCategory: 1,
      categoryName: idProduct % 5 === 0 ? 'Booster & <Box>' : 'Magic Single',
      enName: idProduct % 2 === 0 ? 'Black Lotus' : 'Jötun <Grunt> & co \u0001',
      number: idProduct % 3 === 0 ? null : String(idProduct),
      rarity: idProduct % 3 === 0 ? null : 'Rare',
      isSingle: idProduct % 5 === 0 ? 0 : 1,
      dateAdded: null,
      image: idProduct % 7 === 0 ? '' : `./img/${idProduct}.jpg`,
      ...product,
    },
    gameName: 'Magic the Gathering',
    expansion:
      idProduct % 3 === 0 ? null : { idExpansion: 12, enName: 'Alpha & Ωmega', abbreviation: 'LEA', icon: 4 },
    names: idProduct % 2 === 0 ? { 1: 'Black Lotus', 2: 'Lotus noir', 3: '' } : { 4: 'Gruñón <ñ>' },
    countReprints: (idProduct % 3) + 1,
    countArticles: idProduct * 3,
    countFoils: idProduct % 4,
    countOffers: idProduct,
    ...overrides,
  };
}

describe('Listed product mapper', () => {
  it('writes a list of products with its compiled XML writer byte for byte as the generic writer, and the same JSON', () => {
    const infos = Array.from({ length: 14 }, (_, i) => info(i + 1));
    for (const idLanguage of [1, 2, 3, 4, 5, 1]) {
      for (const counts of [0, 7]) {
        const shown = infos.map((i) => ({ ...i, countArticles: i.countArticles + counts }));
        const plain = { product: shown.map((i) => mapProductListed(i, idLanguage)) };
        const compiled = { product: mapProductsListed(shown, idLanguage) };
        assert.ok(compiled.product[0] instanceof CompiledTree);
        assert.equal(toXml(compiled), toXml(plain), `language ${idLanguage}`);
        // As answers send it: the kept bytes of each product's text.
        assert.deepEqual(toXmlBuffer(compiled), toXmlBuffer(plain), `language ${idLanguage}`);
        assert.equal(toXmlBuffer(compiled).toString('utf8'), toXml(plain));
        assert.equal(JSON.stringify(compiled), JSON.stringify(plain));
      }
    }
  });

  it('writes what a new info of the same product shows, not what an earlier one did', () => {
    const before = info(2);
    const xmlOf = (i: ProductInfo, idLanguage = 2) => {
      const text = toXml({ product: mapProductsListed([i], idLanguage) });
      assert.equal(toXmlBuffer({ product: mapProductsListed([i], idLanguage) }).toString('utf8'), text);
      return text;
    };
    assert.match(xmlOf(before), /<locName>Lotus noir<\/locName>/);
    // The store reads new objects after the catalog version moved.
    const renamed = info(2, { names: { 2: 'Lotus sombre' } });
    assert.match(xmlOf(renamed), /<locName>Lotus sombre<\/locName>.*<name>Lotus sombre<\/name>/);
    assert.doesNotMatch(xmlOf(renamed), /Lotus noir/);
    // The same product row with other catalog facts beside it: made again, not served stale.
    const moved = {
      ...before,
      names: { 2: 'Lotus déplacé' },
      gameName: 'Other Game',
      expansion: { idExpansion: 13, enName: 'Beta', abbreviation: 'LEB', icon: 5 },
      countReprints: 9,
    };
    const xml = xmlOf(moved);
    assert.match(xml, /<gameName>Other Game<\/gameName>/);
    assert.match(xml, /<expansionName>Beta<\/expansionName><expansionIcon>5<\/expansionIcon>/);
    assert.match(xml, /<countReprints>9<\/countReprints>/);
    assert.match(xml, /Products\/Singles\/Beta\//);
    assert.equal(xml, toXml({ product: [mapProductListed(moved, 2)] }));
    const detailed = mapProductListed(moved, 2);
    assert.equal(detailed.localization[1]!.name, 'Lotus déplacé');
  });

  it('shares nothing an answer could change for another', () => {
    const one = mapProductListed(info(4), 1);
    assert.throws(() => {
      (one.localization as { name: string }[])[0]!.name = 'changed';
    }, TypeError);
    assert.throws(() => {
      one.links!.push({ rel: 'x', href: '/x', method: 'GET' });
    }, TypeError);
  });
});
