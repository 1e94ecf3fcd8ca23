import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../src/auth/passwords.js';
import type { SellerActivationStart } from '../src/domain/seller-activation.js';
import { createUser } from '../src/domain/users.js';
import type { User } from '../src/store/schema.js';
import { ApiClient, createTestApp, type TestServer } from './helpers.js';
import { WebClient } from './web-client.js';

export const PASSWORD = 'correct horse battery';

/** A user of the website tests, with an app for the API and a signed-in browser session. */
export interface Person {
  user: User;
  api: ApiClient;
  web: WebClient;
}

/** A new user in Berlin (a unique name from `name`), signed in on the website. */
export async function person(
  server: TestServer,
  name: string,
  options: { balanceCents?: number; sellerActivation?: SellerActivationStart; landing?: string } = {},
): Promise<Person> {
  const username = `${name}${randomBytes(3).toString('hex')}`;
  const user = await createUser(server.services, {
    username,
    country: 'D',
    accountType: 'private',
    balanceCents: options.balanceCents ?? 0,
    ...(options.sellerActivation === undefined ? {} : { sellerActivation: options.sellerActivation }),
    firstName: 'Test',
    lastName: name,
    street: 'Teststraße 1',
    zip: '10115',
    city: 'Berlin',
    phoneNumber: '+49 30 1',
    passwordHash: await hashPassword(PASSWORD),
  });
  const api = new ApiClient(server, await createTestApp(server, user));
  const web = new WebClient(server);
  const signed = await web.signIn(username, PASSWORD, options.landing ?? '/orders');
  assert.equal(signed.status, 303, signed.text);
  // Land where the browser is sent, as a browser would: the CSRF secret is new since signing in,
  // and the forms to post carry a token of it.
  await web.get(signed.location!);
  return { user, api, web };
}
