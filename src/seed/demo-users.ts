import { createAccessToken, createApp } from '../auth/apps.js';
import { createUser, type NewUserInput } from '../domain/users.js';
import type { Services } from '../services.js';
import { findUserByUsername } from '../store/users.js';

/**
 * The demo accounts `npm start` creates in an empty database, one of each account type, each with a
 * dedicated app, plus a widget app and a third-party app acting for the buyer. Their credentials are
 * derived from the server key, so they are printed again on every sandbox start.
 */
export const DEMO_USERS: NewUserInput[] = [
  {
    username: 'demo-seller',
    country: 'D',
    accountType: 'professional',
    balanceCents: 10_000,
    firstName: 'Erika',
    lastName: 'Mustermann',
    company: 'Kartenhaus Berlin',
    street: 'Friedrichstraße 12',
    zip: '10117',
    city: 'Berlin',
    email: 'seller@demo.cardbazaar.test',
  },
  {
    username: 'demo-buyer',
    country: 'FR',
    accountType: 'private',
    balanceCents: 50_000,
    firstName: 'Jean',
    lastName: 'Dupont',
    street: '5 rue de la Paix',
    zip: '75002',
    city: 'Paris',
    email: 'buyer@demo.cardbazaar.test',
  },
  {
    username: 'demo-powerseller',
    country: 'IT',
    accountType: 'powerseller',
    balanceCents: 0,
    firstName: 'Giulia',
    lastName: 'Rossi',
    company: 'Carte Rossi S.r.l.',
    street: 'Via Roma 1',
    zip: '00184',
    city: 'Roma',
    email: 'powerseller@demo.cardbazaar.test',
  },
];

export async function seedDemoUsers(services: Services): Promise<void> {
  for (const input of DEMO_USERS) {
    if (await findUserByUsername(services.database.db, input.username)) continue;
    const user = await createUser(services, input);
    await createApp(services, { idUser: user.idUser, kind: 'dedicated', name: `${input.username} tools` });
  }
  const seller = await findUserByUsername(services.database.db, 'demo-seller');
  const buyer = await findUserByUsername(services.database.db, 'demo-buyer');
  if (seller && buyer) {
    await createApp(services, { idUser: seller.idUser, kind: 'widget', name: 'demo widget' });
    const third = await createApp(services, {
      idUser: seller.idUser,
      kind: 'thirdParty',
      name: 'demo third-party app',
      callbackUrl: 'http://127.0.0.1:9999/callback',
    });
    await createAccessToken(services, { idApp: third.app.idApp, idUser: buyer.idUser });
  }
}
