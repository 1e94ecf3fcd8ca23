import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Config, ConfigError } from '../config.js';

/**
 * Where the local certificate authority and the server certificate live (`src/sandbox/tls.ts` makes
 * them): what the https listener reads at start, kept apart from the certificate maker so a server
 * that never makes one does not load it.
 */
export const TLS_FILES = {
  /** The authority's certificate: what clients trust. */
  caCert: 'ca.pem',
  /** The authority's key: signs certificates that clients trusting it accept. Owner-only. */
  caKey: 'ca-key.pem',
  /** The server's certificate (the live hosts, localhost, 127.0.0.1, ::1). */
  cert: 'server.pem',
  /** The server's key. Owner-only. */
  key: 'server-key.pem',
} as const;

/**
 * TLS_DIR, else a `tls` folder in the data folder: beside the SQLite file, or `./data` for
 * PostgreSQL and an in-memory database (where the sandbox keeps its `secret.key` too).
 */
export function tlsDirOf(config: Config): string {
  if (config.tlsDir) return resolve(config.tlsDir);
  const url = config.databaseUrl;
  const path = url.replace(/^sqlite:(\/\/)?/i, '');
  const file = !/^postgres(ql)?:\/\//i.test(url) && path !== ':memory:';
  return resolve(file ? dirname(path) : 'data', 'tls');
}

/** The server certificate and key for the https listener; a clear error when `tls init` has not made them. */
export function loadServerCertificate(dir: string): { key: string; cert: string } {
  const keyPath = join(dir, TLS_FILES.key);
  const certPath = join(dir, TLS_FILES.cert);
  if (!existsSync(keyPath) || !existsSync(certPath)) {
    throw new ConfigError(
      `TLS_PORT needs a certificate: ${certPath} and ${keyPath} do not exist. Run \`cardbazaar tls init --dir ${dir}\` first (then trust ${join(dir, TLS_FILES.caCert)}: \`cardbazaar tls trust\`).`,
    );
  }
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
}
