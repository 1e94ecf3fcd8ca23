import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledList, toXml, toXmlBuffer } from '../http/xml.js';
import { mapMessage, storedMessageXml } from './message.js';

describe('message XML', () => {
  it('writes a list of stored messages as the generic writer writes their trees, in both formats', () => {
    const texts = ['Hello', '', 'a < b & c > d', 'Grüße \u0001 \u{1F600}', ' spaced ', '\u0001', '\uFFFE'];
    for (const [i, text] of texts.entries()) {
      for (const [idSender, unread] of [
        [1, 0],
        [1, 1],
        [2, 0],
        [2, 1],
      ] as const) {
        const message = {
          seq: 3,
          // What `insertMessage` stores: the writer does not escape them.
          idMessage: ['0123456789abcdef01234567', 'fedcba9876543210fedcba98'][i % 2]!,
          idSender,
          idReceiver: 3 - idSender,
          text,
          date: 1_700_000_000_000,
          unread,
        };
        const mapped = mapMessage(message, 1);
        const compiled = new CompiledList(
          'message',
          [message, message],
          (m) => mapMessage(m, 1),
          (m) => storedMessageXml(m, 1),
        );
        assert.equal(toXml({ message: compiled }), toXml({ message: [mapped, mapped] }));
        assert.deepEqual(toXmlBuffer({ message: compiled }), toXmlBuffer({ message: [mapped, mapped] }));
        assert.equal(JSON.stringify({ message: compiled }), JSON.stringify({ message: [mapped, mapped] }));
        // Under another name, as the trees it stands for.
        assert.equal(toXml({ other: compiled }), toXml({ other: [mapped, mapped] }));
      }
    }
  });
});
