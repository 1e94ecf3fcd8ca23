import type { ServerOptions } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { rawErrorResponse } from './client-errors.js';

/**
 * Bounds on what a slow or idle client can hold (slowloris and its kin): Node's own timeouts for the
 * headers, the whole request and the idle keep-alive time, a socket-inactivity timeout, and a cap on
 * the connections one address may hold open at once.
 */

/** Fastify's options for the timeouts (it sets `keepAliveTimeout` and `requestTimeout` itself). */
export function timeoutOptions(config: Config): {
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
  http: ServerOptions;
} {
  return {
    keepAliveTimeout: config.keepAliveTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.socketIdleTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      // Node looks for expired headers and requests only this often (30 s by default), which would
      // let a slow client hold its socket that much longer than the timeout says.
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(config.headersTimeoutMs / 4))),
    },
  };
}

/**
 * Refuses a connection beyond `maxConnectionsPerAddress` from one address with a 429 and closes it,
 * before it can send anything. Behind a trusted proxy every client connects from the proxy's
 * address, so the cap is not applied there (the proxy is the place to bound its clients).
 */
export function installConnectionCap(
  app: FastifyInstance,
  config: Config,
  headers: Record<string, string> = {},
): void {
  capConnections(app.server, config, 'connection', headers);
}

/**
 * The cap on one server: counted per `connection` (plain HTTP) or per `secureConnection` (the https
 * listener, TLS_PORT, where the 429 can only be read once the handshake is done).
 */
export function capConnections(
  server: NetServer,
  config: Config,
  event: 'connection' | 'secureConnection',
  headers: Record<string, string> = {},
): void {
  const max = config.maxConnectionsPerAddress;
  if (max === 0 || config.trustProxy) return;
  const open = new Map<string, number>();
  server.on(event, (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.on('error', () => {});
      socket.end(
        rawErrorResponse(
          429,
          `Too many open connections from your address (at most ${max} at once): reuse them (keep-alive) or close some.`,
          { ...headers, 'Retry-After': '1' },
        ),
      );
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
