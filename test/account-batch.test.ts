import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sendMessage } from '../src/domain/messages.js';
import { findAccount } from '../src/store/accounts.js';
import type { User } from '../src/store/schema.js';
import { createTestUser, describeUnless, NO_POSTGRES, startTestServer, type TestServer } from './helpers.js';

/**
 * Outside a transaction on PostgreSQL, the account reads of one turn of the event loop share one
 * statement (`findAccount`, src/store/accounts.ts): each caller gets what a read of its own gives,
 * the counters of its own user, its own row object, and nothing for a user that does not exist.
 */
describeUnless(NO_POSTGRES, 'account reads batched per turn (postgres)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ dialect: 'postgres' });
  });

  after(async () => {
    await server.close();
  });

  it('answers each read as a read of its own', async () => {
    const db = server.services.database.db;
    const users: User[] = [];
    for (let i = 0; i < 5; i++) users.push(await createTestUser(server));
    const [a, b, c] = users as [User, User, User];
    // Unread messages for b (two) and c (one), so a counter read for the wrong user shows.
    await sendMessage(server.services, a.idUser, b.idUser, 'one');
    await sendMessage(server.services, c.idUser, b.idUser, 'two');
    await sendMessage(server.services, a.idUser, c.idUser, 'three');

    const alone = await server.services.database.transaction(async (tx) =>
      Promise.all(users.map((u) => findAccount(tx, u.idUser))),
    );
    assert.deepEqual(
      alone.map((x) => x?.counters.unreadMessages),
      [0, 2, 1, 0, 0],
    );

    const ids = [a.idUser, b.idUser, a.idUser, 999_999_999, c.idUser, ...users.map((u) => u.idUser)];
    const batched = await Promise.all(ids.map((id) => findAccount(db, id)));
    const expected = ids.map((id) =>
      id === 999_999_999 ? undefined : alone[users.findIndex((u) => u.idUser === id)],
    );
    assert.deepEqual(batched, expected);
    // The same user asked for twice: two objects, so one caller's changes never reach the other.
    assert.notEqual(batched[0]!.user, batched[2]!.user);
  });

  it('reads more users than one statement carries', async () => {
    const db = server.services.database.db;
    const users: User[] = [];
    for (let i = 0; i < 70; i++) users.push(await createTestUser(server));
    const batched = await Promise.all(users.map((u) => findAccount(db, u.idUser)));
    assert.deepEqual(
      batched.map((x) => x?.user.username),
      users.map((u) => u.username),
    );
  });
});
