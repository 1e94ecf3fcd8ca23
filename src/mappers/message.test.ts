import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledTree, toXml } from '../http/xml.js';
import { mapMessage, messageXml } from './message.js';

describe('message XML', () => {
  it('writes a message compiled as the generic writer writes its tree, in both formats', () => {
    const texts = ['Hello', '', 'a < b & c > d', 'Grüße \u0001 \u{1F600}', ' spaced '];
    for (const text of texts) {
      for (const [idSender, unread] of [
        [1, 0],
        [1, 1],
        [2, 0],
        [2, 1],
      ] as const) {
        const mapped = mapMessage(
          {
            seq: 3,
            idMessage: '0123456789abcdef01234567',
            idSender,
            idReceiver: 3 - idSender,
            text,
            date: 1_700_000_000_000,
            unread,
          },
          1,
        );
        const compiled = new CompiledTree(mapped, messageXml);
        assert.equal(toXml({ message: [compiled, compiled] }), toXml({ message: [mapped, mapped] }));
        assert.equal(JSON.stringify({ message: [compiled] }), JSON.stringify({ message: [mapped] }));
      }
    }
  });
});
