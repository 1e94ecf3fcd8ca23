import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toXml, toXmlBuffer } from '../http/xml.js';
import { accountLinks } from './account.js';

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
