import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

/**
 * `npm start` (its prestart, scripts/build-if-changed.mjs) builds only when a source changed since
 * the last build. Run here in a project of its own whose "tsc" only counts how often it was run.
 */
const SCRIPT = resolve('scripts/build-if-changed.mjs');
const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-build-'));
const FAKE_TSC = `
const fs = require('node:fs');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/cli.js', '');
fs.writeFileSync('dist/.tsbuildinfo', '{}');
fs.appendFileSync('builds.log', 'built\\n');
`;

function start(): number {
  const res = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  try {
    return readFileSync(join(dir, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** Marks a path as modified `seconds` from now (file systems keep coarse times; be unambiguous). */
function touch(path: string, seconds: number) {
  const t = new Date(Date.now() + seconds * 1000);
  utimesSync(join(dir, path), t, t);
}

describe('npm start builds only what changed', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('builds the first time and after a change, an added or a deleted file; not otherwise', () => {
    mkdirSync(join(dir, 'src'));
    mkdirSync(join(dir, 'node_modules/typescript/bin'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/typescript/bin/tsc'), FAKE_TSC);
    writeFileSync(join(dir, 'package.json'), '{"type": "commonjs"}');
    writeFileSync(join(dir, 'tsconfig.json'), '{}');
    writeFileSync(join(dir, 'tsconfig.build.json'), '{}');
    writeFileSync(join(dir, 'src/app.ts'), 'export {};');
    touch('package.json', -60);
    touch('tsconfig.json', -60);
    touch('tsconfig.build.json', -60);
    touch('src/app.ts', -60);
    touch('src', -60);

    assert.equal(start(), 1, 'no dist yet: the first start builds');
    assert.equal(start(), 1, 'nothing changed: no build');
    assert.equal(start(), 1);

    touch('src/app.ts', 60);
    assert.equal(start(), 2, 'an edited source builds');
    assert.equal(start(), 2);

    writeFileSync(join(dir, 'src/new.ts'), 'export {};');
    touch('src/new.ts', 120);
    assert.equal(start(), 3, 'an added file builds');

    unlinkSync(join(dir, 'src/new.ts'));
    touch('src', 180);
    assert.equal(start(), 4, 'a deleted file builds');

    touch('tsconfig.build.json', 240);
    assert.equal(start(), 5, 'a changed build configuration builds');
    assert.equal(start(), 5);

    unlinkSync(join(dir, 'dist/cli.js'));
    assert.equal(start(), 6, 'a missing build output builds');
  });
});
