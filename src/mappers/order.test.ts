import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OrderView } from '../domain/order-views.js';
import { CompiledTree, toXml, toXmlBuffer } from '../http/xml.js';
import type { ArticleView } from '../store/articles.js';
import type { Order, OrderEvaluation, OrderState } from '../store/schema.js';
import type { ShownUser } from '../store/users.js';
import { mapOrder, mapOrders } from './order.js';

function user(idUser: number, odd: boolean): ShownUser {
  return {
    idUser,
    username: odd ? 'séller & <co>' : `buyer${idUser}`,
    registerDate: 1_600_000_000_000 + idUser,
    isCommercial: idUser % 3,
    maySell: odd ? 1 : 0,
    company: odd ? 'Käse & Co <GmbH>' : null,
    firstName: odd ? 'Ann\u0001' : 'Bo',
    lastName: odd ? 'Ö' : '',
    addressName: odd ? '' : 'Bo B',
    addressExtra: odd ? 'c/o <x>' : null,
    street: 'Straße 1 & 2',
    zip: '10115',
    city: odd ? 'Zürich 🏔' : 'Paris',
    country: odd ? 'CH' : 'FR',
    phoneNumber: odd ? '' : '+33 1',
    email: `u${idUser}@example.com`,
    vat: odd ? 'DE<1>' : null,
    legalInformation: odd ? 'line\nline & more' : '',
    riskGroup: idUser % 2,
    lossPercentage: '0 - 2%',
    unsentShipments: idUser,
    // Numbers the byte writer writes as digits, and ones it leaves to `String`.
    reputation: odd ? -1 : 1,
    shipsFast: 0,
    sellCount: odd ? 2 ** 33 : 3,
    soldItems: 9,
    avgShippingTime: odd ? 1.5 : 2,
    onVacation: odd ? 1 : 0,
  };
}

function line(idArticle: number, idGame: number, comments: string): ArticleView {
  return {
    idArticle,
    idUser: 7,
    idProduct: 100 + idGame,
    idLanguage: 1 + (idArticle % 12),
    comments,
    price: idArticle * 37,
    condition: idGame === 1 ? 'NM' : null,
    isFoil: idArticle % 2,
    isSigned: 1,
    isAltered: 0,
    isPlayset: 0,
    isFirstEd: 1,
    isReverseHolo: 0,
    count: 1 + (idArticle % 5),
    createdAt: 1_700_000_000_000,
    lastEdited: 1_700_000_000_000,
    product: {
      idProduct: 100 + idGame,
      idGame,
      enName: 'Black Lotus',
      locName: 'Loto Nero <&>',
      image: '',
      idExpansion: idGame === 1 ? 1 : null,
      expansionName: idGame === 1 ? 'Alpha' : null,
      expansionAbbreviation: null,
      expansionIcon: null,
      number: null,
      rarity: idGame === 1 ? 'Rare' : null,
      isSingle: idGame === 1 ? 1 : 0,
    },
  };
}

// Texts the byte writer takes each of its ways with: escapes, controls it drops, two-, three- and
// four-byte characters, lone surrogates (U+FFFD), and texts long enough for Node to write.
const COMMENTS = [
  'mint & <sealed> ñ',
  '€ 5\uFFFE off\u0007',
  'lone \uD83D here, \uDE00 there, and \uD83D\u0001\uDE00 joined',
  'played 🃏 >',
  `long ${'é & ü <x> '.repeat(20)}`,
  `long ascii ${'abc & <d> '.repeat(20)}`,
  `long and lone ${'\uD800x'.repeat(70)}`,
];

const STATES: OrderState[] = ['bought', 'paid', 'sent', 'received', 'lost', 'cancelled'];

function order(idOrder: number, idSeller: number, idBuyer: number, k: number): Order {
  const set = (bit: number) => (k & bit) !== 0;
  const t = 1_700_000_000_000 + idOrder * 3_600_000 + (k % 2) * 180 * 86_400_000;
  return {
    idOrder,
    idBuyer,
    idSeller,
    state: STATES[k % STATES.length]!,
    dateBought: t,
    datePaid: set(1) ? t + 1000 : null,
    dateSent: set(2) ? t + 2000 : null,
    dateReceived: set(4) ? t + 3000 : null,
    dateCancelled: set(8) ? t + 4000 : null,
    dateLost: set(16) ? t + 5000 : null,
    lastStateChange: t,
    wasMergedInto: set(32) ? idOrder + 1 : null,
    idShippingMethod: set(64) ? null : 3,
    shippingMethodName: set(1) ? 'Letter & <insured>' : 'Standard letter',
    shippingPrice: k * 13,
    isLetter: k % 2,
    isInsured: (k >> 1) % 2,
    trackingNumber: set(2) ? 'RR<1>&' : set(4) ? '' : null,
    shippingName: 'Bo B',
    shippingExtra: set(8) ? 'Étage 2 & <3>' : set(16) ? '' : null,
    shippingStreet: '1 rue du Banc',
    shippingZip: '75001',
    shippingCity: 'Paris',
    shippingCountry: 'FR',
    articleCount: k,
    articleValue: k * 101 - 50,
    totalValue: k * 114,
    cancellationRequestBuyer: set(4) ? 'too slow & <late> — sorry' : set(128) ? '' : null,
    cancellationRequestSeller: set(8) ? 'out of stock' : null,
    relistOnCancel: 0,
    note: set(16) ? 'note\n<b>&</b>' : '',
    revision: 1,
    paidFromMoney: 0,
    paidFromBonus: 0,
    cancellationReason: set(32) ? 'no payment' : set(64) ? '' : null,
    cancellationRequestBuyerDate: set(4) && set(1) ? t + 7000 : null,
    cancellationRequestSellerDate: set(8) ? t + 8000 : null,
  };
}

function evaluation(idOrder: number, k: number): OrderEvaluation | undefined {
  if (k % 3 === 0) return undefined;
  return {
    idOrder,
    idSeller: 7,
    evaluationGrade: 1 + (k % 3),
    itemDescription: 2,
    packaging: 3,
    speed: k % 2 === 0 ? 1 : null,
    comment: k % 4 === 0 ? '' : 'fine & <quick> ✓',
    complaints: k % 5 === 0 ? '[]' : JSON.stringify(['badlyPacked', 'x & <y>']),
    createdAt: 0,
  } as unknown as OrderEvaluation;
}

describe('Order mapper', () => {
  it('writes a list of orders with its compiled XML writer byte for byte as the generic writer, and the same JSON', () => {
    const seller = user(7, true);
    const buyers = [user(20, false), user(21, true), user(22, false)];
    const views: OrderView[] = [];
    for (let k = 0; k < 300; k++) {
      const buyer = buyers[k % buyers.length]!;
      views.push({
        order: order(1000 + k, seller.idUser, buyer.idUser, k),
        seller,
        buyer,
        lines: Array.from({ length: k % 3 }, (_, i) =>
          line(10 * k + i, [1, 3, 6][(k + i) % 3]!, i === 0 ? '' : COMMENTS[k % COMMENTS.length]!),
        ),
        evaluation: evaluation(1000 + k, k),
      });
    }
    // As the seller, as the buyer, and as neither (a checkout's list is the buyer's).
    for (const idViewer of [7, 21, 99]) {
      const plain = { order: views.map((v) => mapOrder(v, idViewer)) };
      const compiled = { order: mapOrders(views, idViewer) };
      assert.ok(compiled.order[0] instanceof CompiledTree);
      assert.equal(toXml(compiled), toXml(plain), `viewer ${idViewer}`);
      // Written straight into the answer's bytes: the bytes of the generic writer's text, twice
      // over (the parties copied from the first answer's bytes would be wrong in the second).
      const bytes = Buffer.from(toXml(plain), 'utf8');
      for (let round = 0; round < 2; round++) {
        const written = toXmlBuffer(compiled);
        assert.ok(written.equals(bytes), `viewer ${idViewer}, round ${round}`);
      }
      assert.equal(JSON.stringify(compiled), JSON.stringify(plain), `viewer ${idViewer}`);
      // Met outside a list, an order has no writer of its own: the generic walk writes its tree.
      const one = { order: compiled.order[4] };
      assert.ok(toXmlBuffer(one).equals(Buffer.from(toXml({ order: plain.order[4] }), 'utf8')));
    }
  });
});
