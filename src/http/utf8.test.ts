import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Bytes } from './utf8.js';

test('utf8Bytes gives the bytes Buffer.from does, for ASCII, Latin-1 and wider texts', () => {
  const long = (s: string) => s.repeat(Math.ceil(20_000 / s.length));
  const texts = [
    '',
    'short ß',
    long('<street>Benchstraße 1</street>'),
    long('plain ascii only '),
    'ß' + long('a') + 'é',
    long('é'),
    long('<name>Łódź</name>'),
    long('a') + '日本' + long('b'),
    long('a') + '\u{1F600}',
    long('a') + '\u00ff\u0080\u007f',
    long('ab') + '\ud800',
    'x' + long('abc') + 'é',
    long('abcd') + 'é' + 'abc',
    long('é\u0080\u00ffa'),
  ];
  for (const text of texts) {
    assert.deepEqual(utf8Bytes(text), Buffer.from(text, 'utf8'), text.slice(0, 40));
    // Built of pieces, as a written answer is.
    const rope = text.split('').reduce((a, c) => a + c, '');
    assert.deepEqual(utf8Bytes(rope), Buffer.from(text, 'utf8'));
  }
});

test('utf8Bytes finds a character beyond ASCII at every position of the words it reads', () => {
  for (let length = 8192; length < 8192 + 40; length++) {
    for (const at of [
      0,
      1,
      2,
      3,
      4,
      15,
      16,
      17,
      length - 5,
      length - 4,
      length - 3,
      length - 2,
      length - 1,
    ]) {
      const text = 'a'.repeat(at) + 'é' + 'a'.repeat(length - at - 1);
      assert.deepEqual(utf8Bytes(text), Buffer.from(text, 'utf8'), `${length} ${at}`);
    }
  }
});
