import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledTree, toXml, toXmlBuffer } from '../http/xml.js';
import type { ArticleView } from '../store/articles.js';
import type { User } from '../store/schema.js';
import type { ShownUser } from '../store/users.js';
import { type ArticleContext, mapArticle, mapOffers } from './article.js';
import { MappedOnce } from './values.js';

const seller = {
  idUser: 7,
  username: 'séller & <co>',
  passwordHash: null,
  country: 'D',
  isCommercial: 1,
  maySell: 1,
  sellerActivation: 3,
  riskGroup: 0,
  lossPercentage: '0 - 2%',
  reputation: 1,
  shipsFast: 1,
  onVacation: 0,
  idDisplayLanguage: 1,
  firstName: 'Ann',
  lastName: 'Ö',
  company: null,
  addressName: '',
  addressExtra: null,
  street: 'Street 1',
  zip: '10115',
  city: 'Berlin',
  email: 'a@example.com',
  phoneNumber: '',
  vat: null,
  legalInformation: '',
  registerDate: 1_600_000_000_000,
  isActivated: 1,
  moneyBalance: 0,
  bonusBalance: 0,
  providerRechargeAmount: 0,
  accountOwner: '',
  iban: '',
  bic: '',
  bankName: '',
  sellCount: 3,
  soldItems: 9,
  avgShippingTime: 2,
  unsentShipments: 0,
} satisfies User;

function view(
  idArticle: number,
  idGame: number,
  isSingle: number,
  comments: string,
  condition: string | null,
) {
  return {
    idArticle,
    idUser: 7,
    idProduct: 100 + idGame,
    idLanguage: idArticle % 12,
    comments,
    price: idArticle * 37,
    condition,
    isFoil: idArticle % 2,
    isSigned: 1,
    isAltered: 0,
    isPlayset: idArticle % 3 === 0 ? 1 : 0,
    isFirstEd: 1,
    isReverseHolo: 0,
    count: idArticle % 5,
    createdAt: 1_700_000_000_000,
    lastEdited: 1_700_000_000_000 + idArticle,
    product: {
      idProduct: 100 + idGame,
      idGame,
      enName: 'Black Lotus',
      locName: 'Loto Nero <&>',
      image: '',
      idExpansion: isSingle ? 1 : null,
      expansionName: isSingle ? 'Alpha' : null,
      expansionAbbreviation: null,
      expansionIcon: null,
      number: null,
      rarity: isSingle ? 'Rare' : null,
      isSingle,
    },
  } satisfies ArticleView;
}

describe('Article mapper', () => {
  it('writes a page of articles with its compiled XML writer byte for byte as the generic writer, and the same JSON', () => {
    const views = [1, 3, 6, 2].flatMap((idGame, g) =>
      [
        ['', 'NM'],
        ['mint & <sealed> \u0001', null],
        ['ñ café', 'EX'],
      ].flatMap(([comments, condition], k) => [
        view(10 * g + 2 * k + 1, idGame, 1, comments!, condition ?? null),
        view(10 * g + 2 * k + 2, idGame, 0, comments!, condition ?? null),
      ]),
    );
    const contexts: ArticleContext[] = ['marketplace', 'stock', 'cart', 'order'];
    for (const context of contexts) {
      for (const options of [
        {},
        { count: 2, price: 1999 },
        { withProduct: false },
        { inShoppingCart: true },
      ]) {
        const once = new MappedOnce();
        const plain = {
          article: views.map((v) => mapArticle(v, { context, seller, ...options })),
        };
        const compiled = {
          article: views.map((v) => mapArticle(v, { context, seller, ...options, once })),
        };
        assert.ok(compiled.article[0] instanceof CompiledTree);
        assert.equal(toXml(compiled), toXml(plain), `${context} ${JSON.stringify(options)}`);
        assert.ok(
          toXmlBuffer(compiled).equals(Buffer.from(toXml(plain), 'utf8')),
          `bytes: ${context} ${JSON.stringify(options)}`,
        );
        assert.equal(JSON.stringify(compiled), JSON.stringify(plain));
      }
    }
  });

  it('writes a page of offers into bytes as the generic writer writes their trees, sellers and products shared', () => {
    const other = { ...seller, idUser: 8, username: 'plain', company: 'Ltd & Co', country: 'ES' };
    const views = [1, 3, 6, 2].flatMap((idGame, g) =>
      [
        ['', 'NM'],
        ['mint & <sealed> \u0001', null],
        ['ñ café', 'EX'],
        ['x'.repeat(300) + '€', ''],
      ].flatMap(([comments, condition], k) => [
        view(10 * g + 2 * k + 1, idGame, 1, comments!, condition ?? null),
        { ...view(10 * g + 2 * k + 2, idGame, 0, comments!, condition ?? null), idUser: 8 + (k % 2) },
      ]),
    );
    // One product object per game, as a page's views share them.
    const products = new Map(views.map((v) => [v.product.idGame, v.product]));
    for (const v of views) v.product = products.get(v.product.idGame)!;
    // Seller 9 is not among the sellers: its offers show none.
    const sellers = new Map<number, ShownUser>([
      [7, seller],
      [8, other],
    ]);
    const inCart = new Set(views.filter((v) => v.idArticle % 3 === 0).map((v) => v.idArticle));
    const plain = {
      article: views.map((v) =>
        mapArticle(v, {
          context: 'marketplace',
          seller: sellers.get(v.idUser),
          inShoppingCart: inCart.has(v.idArticle),
        }),
      ),
    };
    const compiled = { article: mapOffers({ articles: views, sellers, inCart }) };
    const expected = toXml(plain);
    // Twice: what one answer wrote is not copied into the next.
    for (let i = 0; i < 2; i++) assert.equal(toXmlBuffer(compiled).toString('utf8'), expected);
    assert.equal(toXml(compiled), expected);
    assert.equal(JSON.stringify(compiled), JSON.stringify(plain));
  });
});
