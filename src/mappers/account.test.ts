import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toXml, toXmlBuffer } from '../http/xml.js';
import type { AccountView } from '../domain/account.js';
import { accountLinks, accountTree, mapAccount } from './account.js';

describe('account links', () => {
  it('write the bytes of plain links, answer after answer, in both formats', () => {
    const plain = accountLinks().map((l) => JSON.parse(JSON.stringify(l)) as Record<string, string>);
    assert.deepEqual(
      plain.map((l) => l.rel),
      ['self', 'vacation', 'language', 'list_message_threads', 'redeem_coupon'],
    );
    for (let i = 0; i < 3; i++) {
      const links = accountLinks();
      assert.equal(toXml({ links }), toXml({ links: plain }));
      assert.ok(toXmlBuffer({ links }).equals(Buffer.from(toXml({ links: plain }))));
      assert.equal(JSON.stringify({ links }), JSON.stringify({ links: plain }));
    }
  });
});

describe('the account written by its compiled XML writer', () => {
  const base = {
    idUser: 7,
    username: 'demo-seller',
    country: 'D',
    isCommercial: 1,
    maySell: 1,
    sellerActivation: 3,
    riskGroup: 0,
    lossPercentage: '0 - 2%',
    reputation: 1,
    shipsFast: 2,
    sellCount: 120,
    soldItems: 340,
    avgShippingTime: 1,
    onVacation: 0,
    idDisplayLanguage: 3,
    firstName: 'Jörg',
    lastName: 'Müller',
    addressName: 'Jörg Müller',
    addressExtra: null,
    street: 'Hauptstraße 1',
    zip: '10115',
    city: 'Berlin',
    email: 'demo@example.com',
    phoneNumber: '',
    vat: null,
    legalInformation: 'Tom & Jerry <GmbH>',
    registerDate: Date.UTC(2020, 0, 2, 3, 4, 5),
    isActivated: 1,
    moneyBalance: 12345,
    bonusBalance: -5,
    providerRechargeAmount: 0,
    accountOwner: 'J. Müller',
    iban: 'DE89370400440532013000',
    bic: '',
    bankName: 'Bank \u0001 of 🃏 cards',
  };
  const counters = { articlesInShoppingCart: 3, unreadMessages: 0, unpaidAmount: 999 };
  const views = [
    base,
    {
      ...base,
      maySell: 0,
      onVacation: 1,
      isActivated: 0,
      vat: 'DE123',
      addressExtra: 'c/o x',
      bic: 'COBADEFF',
    },
    { ...base, username: '', lossPercentage: '', email: '', moneyBalance: 0, bonusBalance: 0 },
  ].map((user) => ({ user, counters }) as unknown as AccountView);

  it('gives the bytes of the plain tree in XML (string and buffer) and the same JSON', () => {
    for (const view of views) {
      const plain = { account: mapAccount(view), links: accountLinks() };
      const compiled = { account: accountTree(view), links: accountLinks() };
      assert.equal(toXml(compiled), toXml(plain));
      assert.ok(toXmlBuffer(compiled).equals(Buffer.from(toXml(plain))));
      assert.equal(JSON.stringify(compiled), JSON.stringify(plain));
    }
  });
});
