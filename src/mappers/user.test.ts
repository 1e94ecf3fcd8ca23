import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledTree, toXml } from '../http/xml.js';
import type { ShownUser } from '../store/users.js';
import { mapUser, type UserContext, userXml } from './user.js';

const plain: ShownUser = {
  idUser: 7,
  username: 'anna',
  registerDate: 1_700_000_000_000,
  isCommercial: 1,
  maySell: 1,
  company: 'A & B <Ltd>',
  firstName: 'Änna',
  lastName: 'Smith',
  addressName: 'Anna Smith',
  addressExtra: null,
  street: 'Hauptstraße 1',
  zip: '10115',
  city: 'Berlin',
  country: 'D',
  phoneNumber: '+49 30 1234',
  email: 'anna@example.test',
  vat: 'DE123456789',
  legalInformation: 'Line 1\nLine 2 \u0001',
  riskGroup: 2,
  lossPercentage: '0 - 2%',
  unsentShipments: 1,
  reputation: 3,
  shipsFast: 1,
  sellCount: 40,
  soldItems: 120,
  avgShippingTime: 2,
  onVacation: 0,
};
const empty: ShownUser = {
  ...plain,
  company: null,
  firstName: '',
  lastName: '',
  addressExtra: '',
  country: '',
  phoneNumber: '',
  email: '',
  vat: null,
  legalInformation: '',
  maySell: 0,
  onVacation: 1,
};

describe('user XML', () => {
  it('writes a user straight from the row as the generic writer writes its tree, in every context', () => {
    for (const user of [plain, empty]) {
      for (const context of ['public', 'counterparty'] as UserContext[]) {
        const tree = mapUser(user, context);
        const compiled = new CompiledTree(tree, () => userXml(user, context));
        assert.equal(toXml({ partner: compiled }), toXml({ partner: tree }));
        assert.equal(JSON.stringify({ partner: compiled }), JSON.stringify({ partner: tree }));
      }
    }
  });
});
