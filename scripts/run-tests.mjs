#!/usr/bin/env node
// Runs every test file (`src/**/*.test.ts` beside the code they test, `test/**/*.test.ts` for the
// HTTP-level suites) with node:test, TypeScript loaded by tsx. Node 20's runner takes no globs, so
// the files are found here. Extra arguments go to node (e.g. --test-name-pattern=oauth).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(find(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const explicit = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));
const files = explicit.length > 0 ? explicit : [...find('src'), ...find('test')].sort();
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', ...flags, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
