import type { ClientCredentials } from '../../src/auth/client.js';
import { readThread, sendMessage } from '../../src/domain/messages.js';
import { findUserByUsername } from '../../src/store/users.js';
import { dedicatedCredentials, ensureDemo } from '../prepare.js';
import type { Scenario } from '../scenario.js';

interface State {
  credentials: ClientCredentials;
  idPartner: number;
}

const THREAD_LENGTH = 40;

/**
 * GET /account/messages/:idOtherUser for the demo seller: a thread of 40 messages with the demo
 * buyer (read already, so the request only reads: the steady state of a client polling a thread).
 */
export const messageThreadScenario: Scenario<State> = {
  name: 'GET /account/messages/:idOtherUser',
  description: `signed GET of a ${THREAD_LENGTH}-message thread (partner, messages, unread count, XML)`,
  async prepare(services) {
    await ensureDemo(services);
    const seller = (await findUserByUsername(services.database.db, 'demo-seller'))!;
    const buyer = (await findUserByUsername(services.database.db, 'demo-buyer'))!;
    const page = { offset: 0, limit: 100, paginated: true };
    const { total } = await readThread(services, seller.idUser, buyer.idUser, page);
    for (let i = total; i < THREAD_LENGTH; i++) {
      const [from, to] = i % 2 === 0 ? [buyer, seller] : [seller, buyer];
      await sendMessage(
        services,
        from.idUser,
        to.idUser,
        `Message ${i + 1}: is the Black Lotus still available?`,
      );
    }
    // Read once, so the benchmark measures reads, not the one-off marking.
    await readThread(services, seller.idUser, buyer.idUser, page);
    return { credentials: await dedicatedCredentials(services, 'demo-seller'), idPartner: buyer.idUser };
  },
  request: (state) => ({
    method: 'GET',
    path: `/account/messages/${state.idPartner}`,
    credentials: state.credentials,
  }),
  expectStatus: 200,
};
