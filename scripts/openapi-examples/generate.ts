/**
 * `npm run openapi:examples`: records an example request and answer of every API operation on the
 * demo data (`record.ts`, requests in `operations.ts`) into `docs/openapi-examples.json`, which the
 * OpenAPI document shows on each operation. `--check` writes nothing and fails when the committed
 * file differs from what the server answers now (`test/openapi-examples.test.ts` runs it).
 *
 * Salts, tokens and ids drawn at random would make every run differ; this process's random source
 * is therefore a seeded stream, replaced before anything of the server is loaded (hence the dynamic
 * import below) and reseeded per world, so each example depends on its own recipe alone.
 */
import crypto from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

let seed = '';
let counter = 0;
function bytes(n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let off = 0; off < n;) {
    off += crypto.createHash('sha256').update(`${seed}:${counter++}`).digest().copy(out, off);
  }
  return out;
}
const c = crypto as unknown as Record<string, unknown>;
c.randomBytes = (n: number, cb?: (err: Error | null, b: Buffer) => void) => {
  const b = bytes(n);
  if (!cb) return b;
  process.nextTick(cb, null, b);
  return undefined;
};
c.randomUUID = () => {
  const b = bytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
c.randomInt = (a: number, b?: number | ((e: Error | null, n: number) => void), cb?: unknown) => {
  const [min, max] = typeof b === 'number' ? [a, b] : [0, a];
  const n = min + (bytes(6).readUIntBE(0, 6) % (max - min));
  const callback = (typeof b === 'function' ? b : cb) as ((e: Error | null, n: number) => void) | undefined;
  if (!callback) return n;
  process.nextTick(callback, null, n);
  return undefined;
};
syncBuiltinESMExports();

const reseed = (label: string) => {
  seed = label;
  counter = 0;
};

const { values: opts } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const FILE = fileURLToPath(new URL('../../docs/openapi-examples.json', import.meta.url));

const { recordExamples } = await import('./record.js');
const recorded = await recordExamples(reseed, opts.check ? () => {} : (line) => console.error(line));
const text = `${JSON.stringify(recorded, null, 2)}\n`;
if (opts.check) {
  let committed = '';
  try {
    committed = readFileSync(FILE, 'utf8');
  } catch {
    // Missing: reported below as stale.
  }
  if (committed !== text) {
    const old = committed ? (JSON.parse(committed) as typeof recorded).operations : {};
    const changed = Object.keys({ ...old, ...recorded.operations }).filter(
      (id) => JSON.stringify(old[id]) !== JSON.stringify(recorded.operations[id]),
    );
    console.error(
      `docs/openapi-examples.json is not current (${changed.length} operation(s) differ: ${changed.join(', ') || 'the header'}); run \`npm run openapi:examples\`.`,
    );
    process.exit(1);
  }
  console.log(
    `docs/openapi-examples.json is current (${Object.keys(recorded.operations).length} operations).`,
  );
} else {
  writeFileSync(FILE, text);
  console.log(`wrote docs/openapi-examples.json (${Object.keys(recorded.operations).length} operations)`);
}
// Export builds and the outbox may leave timers behind; the work is done.
process.exit(0);
