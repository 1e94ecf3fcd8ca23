import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readRecording, registeredRoutes, render } from '../scripts/parity/generate.js';
import { EXTENSIONS, OPERATIONS } from '../scripts/parity/operations.js';

/** `docs/parity.md` covers every route, and says what the recording of a test run shows. */
describe('the parity table', () => {
  const listed = new Set([...OPERATIONS.flatMap((o) => o.routes), ...EXTENSIONS.flatMap((e) => e.routes)]);

  it('has a row for every route the server registers', () => {
    const missing = registeredRoutes().filter((r) => !listed.has(r));
    assert.deepEqual(
      missing,
      [],
      `Routes without a row in docs/parity.md: ${missing.join(', ')}. Add each to scripts/parity/operations.ts (in OPERATIONS under the live operation it implements, or in EXTENSIONS when the live API has no such operation), then run \`npm run parity\` and commit docs/parity.md.`,
    );
  });

  it('names only routes that exist', () => {
    const registered = new Set(registeredRoutes());
    const stale = OPERATIONS.flatMap((o) => o.routes).filter((r) => !registered.has(r));
    assert.deepEqual(stale, [], 'operations.ts names routes the server does not register');
  });

  it('reports per format what the recording shows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-parity-test-'));
    try {
      const records = [
        { route: 'GET /account', format: 'json', status: 200, pinned: true },
        { route: 'GET /account', format: 'xml', status: 200, pinned: true },
        { route: 'GET /games', format: 'xml', status: 200, pinned: false },
        { route: 'GET /games', format: 'json', status: 401, pinned: false },
      ];
      writeFileSync(join(dir, '1.jsonl'), records.map((r) => JSON.stringify(r)).join('\n'));
      const text = render(readRecording(dir));
      const row = (op: string) => text.split('\n').find((l) => l.startsWith(`| \`${op}\``)) ?? '';
      assert.match(row('GET /account'), /\| shape pinned \| shape pinned \|/);
      assert.match(row('GET /games'), /\| tested \| \*\*not tested\*\* \|/, 'a 401 is not a tested answer');
      // The live operations with no route keep their row, marked; one the recording did not reach is not tested.
      assert.match(row('GET (generate captcha)'), /_not implemented_ \| — \| — \|/);
      assert.match(row('POST /account/logindata'), /\| \*\*not tested\*\* \| \*\*not tested\*\* \|/);
      assert.match(text, /## Choices that apply to every answer/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
