import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { tryItCommand } from './server.js';

const REQUEST = 'request GET /account --user demo-seller --json';

describe('the start banner’s "Try it" command', () => {
  it('is the plain command when the server runs with the defaults', () => {
    assert.equal(tryItCommand(loadConfig({}), 'http://127.0.0.1:8080'), `npx cardbazaar ${REQUEST}`);
  });

  it('names the address and the database when they are not the defaults', () => {
    const config = loadConfig({ PORT: '9000', DATABASE_URL: '/srv/my data/db.sqlite' });
    assert.equal(
      tryItCommand(config, 'http://127.0.0.1:9000'),
      `npx cardbazaar --database-url '/srv/my data/db.sqlite' ${REQUEST} --base-url http://127.0.0.1:9000`,
    );
    // Quoted: a shell would take the brackets of an IPv6 address for a pattern.
    assert.match(
      tryItCommand(loadConfig({ HOST: '::1' }), 'http://[::1]:8080') ?? '',
      /--base-url 'http:\/\/\[::1\]:8080'$/,
    );
  });

  it('signs for the public address, and reads secrets from the environment instead of printing them', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://cb:hunter2@db.internal:5432/cardbazaar',
      SECRET_KEY: 'a-sandbox-secret-key-of-enough-length-0123',
      PUBLIC_BASE_URL: 'https://sandbox.example.org',
    });
    const command = tryItCommand(config, 'http://127.0.0.1:8080');
    assert.equal(
      command,
      `npx cardbazaar --database-url "$DATABASE_URL" --secret-key "$SECRET_KEY" ${REQUEST} --base-url https://sandbox.example.org`,
    );
    assert.doesNotMatch(command, /hunter2|a-sandbox-secret/);
  });

  it('is left out for an in-memory database, which no other process can open', () => {
    assert.equal(tryItCommand(loadConfig({ DATABASE_URL: ':memory:' }), 'http://127.0.0.1:8080'), undefined);
  });
});
