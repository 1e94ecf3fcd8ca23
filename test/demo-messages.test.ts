import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemo } from '../src/seed/index.js';
import { threadStats } from '../src/store/messages.js';
import { findUserByUsername } from '../src/store/users.js';
import { startTestServer, type TestServer } from './helpers.js';

describe('demo messages', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('gives the demo buyer and seller a conversation, once however often the demo is loaded', async () => {
    await seedDemo(server.services);
    await seedDemo(server.services);
    const db = server.services.database.db;
    const buyer = (await findUserByUsername(db, 'demo-buyer'))!;
    const seller = (await findUserByUsername(db, 'demo-seller'))!;
    assert.deepEqual(await threadStats(db, buyer.idUser, seller.idUser), { total: 4, unread: 2 });
    assert.deepEqual(await threadStats(db, seller.idUser, buyer.idUser), { total: 4, unread: 2 });
  });
});
