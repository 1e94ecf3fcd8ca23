import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { testConfig } from '../config.js';
import { publicOrigin } from './origin.js';

const request = (headers: Record<string, string>, protocol = 'http') =>
  ({ headers, protocol }) as unknown as FastifyRequest;

describe('publicOrigin', () => {
  it('answers a host it has seen as it answered it the first time, per scheme and configuration', () => {
    const plain = testConfig();
    const configured = testConfig({
      publicBaseUrl: 'https://api.example.test/base/',
      oldBaseUrls: ['old.example.test'],
    });
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(publicOrigin(request({ host: 'Api.Example.Test:80' }), plain), {
        origin: 'http://api.example.test',
        basePath: '',
        host: 'api.example.test',
        live: undefined,
        unverifiedLive: undefined,
      });
      assert.deepEqual(publicOrigin(request({ host: 'Api.Example.Test:80' }, 'https'), plain), {
        origin: 'https://api.example.test:80',
        basePath: '',
        host: 'api.example.test:80',
        live: undefined,
        unverifiedLive: undefined,
      });
      assert.deepEqual(publicOrigin(request({ host: 'Api.Example.Test:80' }), configured), {
        origin: 'https://api.example.test',
        basePath: '/base',
        host: 'api.example.test',
        live: undefined,
        unverifiedLive: undefined,
      });
      // An old host keeps its own address, with the configured scheme.
      assert.deepEqual(publicOrigin(request({ host: 'OLD.example.test:8443' }), configured), {
        origin: 'https://old.example.test:8443',
        basePath: '',
        host: 'old.example.test:8443',
        live: undefined,
        unverifiedLive: undefined,
      });
    }
  });

  it('names the live host a request addressed (its https origin, no port), in the sandbox only', () => {
    const plain = testConfig();
    const configured = testConfig({ publicBaseUrl: 'https://api.example.test' });
    const production = testConfig({ mode: 'production', publicBaseUrl: 'https://api.example.test' });
    const off = testConfig({ liveHosts: [] });
    const moved = testConfig({ liveHostMoved: true });
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(publicOrigin(request({ host: 'APIv2.cardmarket.com:8443' }, 'https'), plain), {
        origin: 'https://apiv2.cardmarket.com:8443',
        basePath: '',
        host: 'apiv2.cardmarket.com:8443',
        live: 'https://apiv2.cardmarket.com',
        unverifiedLive: undefined,
      });
      // The configured origin stays what the own signature is checked against; `live` rides beside it.
      assert.deepEqual(publicOrigin(request({ host: 'www.mkmapi.eu' }), configured), {
        origin: 'https://api.example.test',
        basePath: '',
        host: 'api.example.test',
        live: 'https://www.mkmapi.eu',
        unverifiedLive: undefined,
      });
      assert.equal(publicOrigin(request({ host: 'api.example.test' }), configured).live, undefined);
      assert.equal(publicOrigin(request({ host: 'apiv2.cardmarket.com' }), production).live, undefined);
      assert.equal(publicOrigin(request({ host: 'apiv2.cardmarket.com' }), off).live, undefined);
      // Never taken for the server's own address when not verified against.
      assert.equal(
        publicOrigin(request({ host: 'apiv2.cardmarket.com:8443' }), off).unverifiedLive,
        'apiv2.cardmarket.com',
      );
      assert.equal(publicOrigin(request({ host: 'localhost:8443' }), off).unverifiedLive, undefined);
      assert.equal(publicOrigin(request({ host: 'api.cardmarket.com' }), moved).live, undefined);
      assert.equal(
        publicOrigin(request({ host: 'api.cardmarket.com' }), plain).live,
        'https://api.cardmarket.com',
      );
    }
  });

  it('follows forwarded headers only behind a trusted proxy, and keeps answering past its bound', () => {
    const proxied = testConfig({ trustProxy: true });
    const direct = testConfig();
    const forwarded = { host: 'inner:3000', 'x-forwarded-host': 'Outer.Test', 'x-forwarded-proto': 'HTTPS' };
    assert.equal(publicOrigin(request(forwarded), proxied).origin, 'https://outer.test');
    assert.equal(publicOrigin(request({ host: 'inner:3000' }), proxied).origin, 'http://inner:3000');
    assert.equal(publicOrigin(request(forwarded), direct).origin, 'http://inner:3000');
    for (let i = 0; i < 200; i++) {
      assert.equal(publicOrigin(request({ host: `h${i}.test` }), direct).origin, `http://h${i}.test`);
    }
    assert.equal(publicOrigin(request({ host: 'h0.test' }, 'https'), direct).origin, 'https://h0.test');
  });
});
