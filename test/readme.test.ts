import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildCli } from '../src/cli/program.js';
import { SETTINGS } from '../src/config.js';

// The README is checked from outside by newcomers; these keep it from falling behind the code.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function commandPaths(cmd: Command, prefix = ''): string[] {
  return cmd.commands.flatMap((c) => {
    const path = `${prefix}${c.name()}`;
    return c.commands.length > 0 ? commandPaths(c, `${path} `) : [path];
  });
}

describe('README', () => {
  it('documents every setting with its environment variable and flag', () => {
    for (const s of SETTINGS) {
      assert.ok(readme.includes(`\`${s.env}\``), `README lacks ${s.env}`);
      assert.ok(readme.includes(`\`${s.flag}\``), `README lacks ${s.flag}`);
    }
  });

  it('documents every CLI command', () => {
    for (const path of commandPaths(buildCli())) {
      assert.ok(readme.includes(`\`${path}`), `README lacks the command "${path}"`);
    }
  });

  it('gives the two commands of a fresh start and the test command', () => {
    assert.ok(readme.includes('npm install && npm start'));
    assert.ok(readme.includes('npm test'));
  });
});
