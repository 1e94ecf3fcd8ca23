import { createServer, type Server } from 'node:https';
import type { FastifyInstance } from 'fastify';
import { type Config, ConfigError } from '../config.js';
import { timeoutOptions } from './connections.js';

/**
 * The https listener (TLS_PORT, sandbox): a second server in front of the same application, so a
 * request arriving over it takes the one path every request takes, and reads as https (the
 * socket is encrypted), which is what its signature is checked against.
 */
export interface TlsListener {
  server: Server;
  port: number;
  /** Stops accepting, lets requests under way finish, then closes what is left. */
  close(): Promise<void>;
}

export async function listenTls(
  app: FastifyInstance,
  config: Config,
  credentials: { key: string; cert: string },
  port: number,
): Promise<TlsListener> {
  const timeouts = timeoutOptions(config);
  let server: Server;
  try {
    server = createServer(
      {
        key: credentials.key,
        cert: credentials.cert,
        connectionsCheckingInterval: timeouts.http.connectionsCheckingInterval,
      },
      app.routing,
    );
  } catch (err) {
    throw new ConfigError(`The certificate or key in TLS_DIR cannot be used: ${(err as Error).message}`);
  }
  app.alsoServeOn(server);
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(listenError(err, config.host, port));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host: config.host, port });
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  let closing: Promise<void> | undefined;
  return {
    server,
    port: bound,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // What is still busy after a while goes, as Fastify's own server does on close.
        const timer = setTimeout(() => server.closeAllConnections(), 5000);
        timer.unref();
      });
      return closing;
    },
  };
}

/** Binding errors as what to do about them, for the usual ones. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code === 'EACCES') {
    return new ConfigError(
      `TLS_PORT ${port}: not allowed to listen on ${host}:${port}. Ports below 1024 need a capability: give it to node (sudo setcap 'cap_net_bind_service=+ep' "$(readlink -f "$(command -v node)")"), or listen on a high port and forward 443 to it (README, "Port 443 without root").`,
    );
  }
  if (err.code === 'EADDRINUSE') {
    return new ConfigError(`TLS_PORT ${port}: ${host}:${port} is already in use.`);
  }
  return err;
}
