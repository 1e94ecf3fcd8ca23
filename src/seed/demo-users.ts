import { hashPassword } from '../auth/passwords.js';
import { setPasswordHash } from '../store/users.js';
import { createAccessToken, createApp } from '../auth/apps.js';
import { createUser, type NewUserInput } from '../domain/users.js';
import type { Services } from '../services.js';
import { listAccessTokens, listAppsOfUser } from '../store/apps.js';
import type { App, AppKind } from '../store/schema.js';
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
    await demoApp(services, seller.idUser, 'widget', 'demo widget');
    const third = await demoApp(services, seller.idUser, 'thirdParty', 'demo third-party app');
    const tokens = await listAccessTokens(services.database.db, third.idApp);
    if (!tokens.some((t) => t.idUser === buyer.idUser)) {
      await createAccessToken(services, { idApp: third.idApp, idUser: buyer.idUser });
    }
  }
}

/**
 * The owner's demo app of this kind and name, created if there is none. One the operator revoked
 * counts as there: what exists is kept, as everywhere in the demo data.
 */
async function demoApp(services: Services, idUser: number, kind: AppKind, name: string): Promise<App> {
  const apps = await listAppsOfUser(services.database.db, idUser);
  const existing = apps.find((a) => a.kind === kind && a.name === name);
  if (existing) return existing;
  const callbackUrl = kind === 'thirdParty' ? 'http://127.0.0.1:9999/callback' : undefined;
  return (await createApp(services, { idUser, kind, name, callbackUrl })).app;
}

/** The demo accounts' website password (sandbox only; docs/testing-your-client.md, "The demo data"). */
export const DEMO_PASSWORD = 'cardbazaar-demo';

/**
 * Gives every demo account that has none the demo password, so one can sign in to the website as
 * them. Run at every sandbox start with demo data, so a database seeded before the website existed
 * gets them too; an account whose password someone changed keeps it.
 */
export async function ensureDemoPasswords(services: Services): Promise<string[]> {
  const done: string[] = [];
  for (const input of DEMO_USERS) {
    const user = await findUserByUsername(services.database.db, input.username);
    if (!user) continue;
    if (user.passwordHash === null)
      await setPasswordHash(services.database.db, user.idUser, await hashPassword(DEMO_PASSWORD));
    done.push(input.username);
  }
  return done;
}
