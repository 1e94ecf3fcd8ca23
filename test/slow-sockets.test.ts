import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestClient, signedHeader, startTestServer, type TestServer } from './helpers.js';

/**
 * Slow and idle connections are cut, and one address cannot hold more than its share of them,
 * while ordinary clients never notice. Raw `net` sockets play the slow clients; the timeouts are
 * short here (the settings default to seconds) so the suite stays fast.
 */

const TIMEOUTS = {
  headersTimeoutMs: 400,
  requestTimeoutMs: 900,
  keepAliveTimeoutMs: 300,
  socketIdleTimeoutMs: 5000,
  maxConnectionsPerAddress: 8,
};

interface Raw {
  socket: Socket;
  /** Everything the server sent. */
  received: () => string;
  /** Resolves with the milliseconds from `open` until the server closed the connection. */
  closed: Promise<number>;
}

function open(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the connection is still open after `ms`. */
async function openAfter(raw: Raw, ms: number): Promise<boolean> {
  return Promise.race([raw.closed.then(() => false), sleep(ms).then(() => true)]);
}

describe('slow and idle connections', () => {
  let server: TestServer;
  let port: number;
  before(async () => {
    server = await startTestServer({ config: TIMEOUTS });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as { port: number }).port;
  });
  after(() => server.close());

  it('a connection that sends nothing is closed once the header time is up', async () => {
    const raw = await open(port);
    assert.ok(await openAfter(raw, 200), 'closed too early');
    const ms = await raw.closed;
    assert.ok(ms < TIMEOUTS.headersTimeoutMs + 1500, `still open after ${ms} ms`);
  });

  it('headers that trickle in are cut with a 408 and the API error body', async () => {
    const raw = await open(port);
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => raw.socket.writable && raw.socket.write('X-Slow: 1\r\n'), 100);
    try {
      const ms = await raw.closed;
      assert.ok(ms >= TIMEOUTS.headersTimeoutMs - 50 && ms < TIMEOUTS.headersTimeoutMs + 1500, `${ms} ms`);
      assert.match(raw.received(), /^HTTP\/1\.1 408 /);
      assert.match(raw.received(), /<mkm_error_description>The request was not received completely in time/);
      assert.match(raw.received(), /Access-Control-Allow-Origin: \*/);
    } finally {
      clearInterval(drip);
    }
  });

  it('a body that trickles in is cut once the request time is up', async () => {
    const { cred } = await createTestClient(server);
    const url = `http://127.0.0.1:${port}/ws/v2.0/account/coupon`;
    const raw = await open(port);
    raw.socket.write(
      `POST /ws/v2.0/account/coupon HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${signedHeader(cred, 'POST', url)}\r\nContent-Type: application/xml\r\nContent-Length: 1000\r\n\r\n`,
    );
    const drip = setInterval(() => raw.socket.writable && raw.socket.write('<'), 100);
    try {
      const ms = await raw.closed;
      assert.ok(ms >= TIMEOUTS.requestTimeoutMs - 50 && ms < TIMEOUTS.requestTimeoutMs + 1500, `${ms} ms`);
      assert.match(raw.received(), /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
    }
  });

  it('a kept-alive connection is closed when it stays idle after an answer', async () => {
    const raw = await open(port);
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(100);
    assert.match(raw.received(), /^HTTP\/1\.1 200 /);
    const ms = await raw.closed;
    assert.ok(ms < 100 + TIMEOUTS.keepAliveTimeoutMs + 1500, `${ms} ms`);
  });

  it('ordinary clients are not affected: keep-alive reuse, a body sent in parts within the time', async () => {
    const { cred } = await createTestClient(server);
    const raw = await open(port);
    const url = `http://127.0.0.1:${port}/ws/v2.0/output.json/account`;
    for (let i = 0; i < 3; i++) {
      raw.socket.write(
        `GET /ws/v2.0/output.json/account HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${signedHeader(cred, 'GET', url)}\r\n\r\n`,
      );
      await sleep(150); // within the keep-alive time
    }
    assert.equal(raw.received().match(/HTTP\/1\.1 200 /g)?.length, 3, raw.received());
    raw.socket.destroy();

    const body = '<?xml version="1.0" encoding="UTF-8"?><request><couponCode>NOPE</couponCode></request>';
    const couponUrl = `http://127.0.0.1:${port}/ws/v2.0/output.json/account/coupon`;
    const slow = await open(port);
    slow.socket.write(
      `POST /ws/v2.0/output.json/account/coupon HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${signedHeader(cred, 'POST', couponUrl)}\r\nContent-Type: application/xml\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    for (const part of [body.slice(0, 30), body.slice(30, 60), body.slice(60)]) {
      await sleep(150);
      slow.socket.write(part);
    }
    await slow.closed;
    assert.match(slow.received(), /^HTTP\/1\.1 200 /, slow.received());
  });

  it(`one address holds at most ${TIMEOUTS.maxConnectionsPerAddress} connections; the next is told so and closed`, async () => {
    const held: Raw[] = [];
    try {
      for (let i = 0; i < TIMEOUTS.maxConnectionsPerAddress; i++) held.push(await open(port));
      const extra = await open(port);
      await extra.closed;
      assert.match(extra.received(), /^HTTP\/1\.1 429 /);
      assert.match(extra.received(), /Too many open connections from your address/);
      for (const raw of held) assert.ok(await openAfter(raw, 0), 'a held connection was closed');
      // Closing one frees its place.
      held.pop()!.socket.destroy();
      await sleep(50);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(res.status, 200);
    } finally {
      for (const raw of held) raw.socket.destroy();
    }
  });
});

describe('connection cap behind a trusted proxy', () => {
  it('is not applied: every client arrives from the proxy address', async () => {
    const server = await startTestServer({ config: { ...TIMEOUTS, trustProxy: true } });
    try {
      await server.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (server.app.server.address() as { port: number }).port;
      const held: Raw[] = [];
      for (let i = 0; i < TIMEOUTS.maxConnectionsPerAddress + 2; i++) held.push(await open(port));
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(res.status, 200);
      for (const raw of held) raw.socket.destroy();
    } finally {
      await server.close();
    }
  });
});
