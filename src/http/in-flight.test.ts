import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { installRequestsInFlight, RequestsInFlight } from './in-flight.js';

describe('requests in flight', () => {
  it('idle resolves at once when none is in flight, when the last one ends, or after the bound', async () => {
    const inFlight = new RequestsInFlight();
    let t = performance.now();
    await inFlight.idle(1000);
    assert.ok(performance.now() - t < 500);

    inFlight.enter();
    inFlight.enter();
    let resolved = false;
    const waiting = inFlight.idle(5000).then(() => (resolved = true));
    inFlight.leave();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(resolved, false, 'one request is still in flight');
    inFlight.leave();
    await waiting;
    assert.equal(inFlight.busy, false);

    inFlight.enter();
    t = performance.now();
    await inFlight.idle(30);
    assert.ok(performance.now() - t >= 25, 'waited for the bound');
    assert.equal(inFlight.busy, true);
    inFlight.leave();
  });

  it('waits for a quiet period after the last request, started again by a request within it', async () => {
    const inFlight = new RequestsInFlight(60);
    inFlight.enter();
    inFlight.leave();
    const t = performance.now();
    let resolved = false;
    const waiting = inFlight.idle(5000).then(() => (resolved = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(resolved, false, 'still within the quiet period');
    // A request arriving within the period (as a sequential client's next one) starts it again.
    inFlight.enter();
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(resolved, false, 'a request is in flight');
    inFlight.leave();
    const left = performance.now();
    await waiting;
    assert.ok(performance.now() - left >= 55, 'a whole quiet period after the last request');
    assert.ok(performance.now() - t < 1000);
  });

  it('counts a request from its arrival until its response closes, answered or failed', async () => {
    const inFlight = new RequestsInFlight();
    const app = Fastify();
    installRequestsInFlight(app, inFlight);
    let busyInside = false;
    app.get('/ok', async () => {
      busyInside = inFlight.busy;
      return { ok: true };
    });
    app.get('/fail', async () => {
      throw new Error('boom');
    });
    await app.ready();
    assert.equal((await app.inject({ method: 'GET', url: '/ok' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/fail' })).statusCode, 500);
    assert.equal((await app.inject({ method: 'GET', url: '/missing' })).statusCode, 404);
    await new Promise((r) => setImmediate(r));
    assert.equal(busyInside, true);
    assert.equal(inFlight.busy, false);
    // Over a socket, kept alive, and with a client that goes away before the answer.
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    assert.equal((await fetch(`${address}/ok`)).status, 200);
    assert.equal((await fetch(`${address}/fail`)).status, 500);
    await fetch(`${address}/ok`, { signal: AbortSignal.timeout(1) }).catch(() => {});
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(inFlight.busy, false);
    await app.close();
  });
});
