/**
 * The document `cardbazaar serve --print-credentials json` prints and `startSandbox` returns. This
 * file imports nothing, so the package's published types (`import type { SandboxDocument } from
 * 'cardbazaar'`) stay small and stable.
 */

/** The four values that sign a request (OAuth 1.0, reference §4): what a client is configured with. */
export interface SandboxCredentials {
  idApp: number;
  /** The API's spelling: `dedicated`, `widget` or `thirdParty`. */
  kind: 'dedicated' | 'widget' | 'thirdParty';
  name: string;
  /** The user whose app this is (for a third-party app, not the user it acts for). */
  idOwner: number;
  appToken: string;
  appSecret: string;
  /** The empty string for a widget app: it signs with `oauth_token=""` and the key `appSecret&`. */
  accessToken: string;
  accessTokenSecret: string;
}

export interface SandboxUser {
  idUser: number;
  username: string;
  /**
   * The credentials that act as (or, for a widget app, for) this user, one set per app kind: their
   * own dedicated and widget apps, and a third-party app holding an access token for them.
   */
  apps: Partial<Record<SandboxCredentials['kind'], SandboxCredentials>>;
}

export interface SandboxDocument {
  /** What a client puts where it had `https://api.cardmarket.com/ws/v2.0` (the version prefix included). */
  baseUrl: string;
  /** `baseUrl` with the `output.json` segment, for clients that ask for JSON that way. */
  jsonBaseUrl: string;
  /**
   * The https listener's base URL (`TLS_PORT`, sandbox), when there is one: what clients with the
   * live host built in reach under a live host name (README, "Clients with the live host built in").
   */
  httpsBaseUrl?: string;
  /** The website (sign in as a demo user with `demoPassword`). */
  websiteUrl: string;
  /** Where the data lives: a SQLite path, `:memory:`, or a PostgreSQL URL without its password. */
  database: string;
  demoPassword: string;
  /**
   * The bearer token of the control API at `/_cardbazaar/` on the same origin (clock, faults,
   * snapshots, fixtures, event triggers, reset): `Authorization: Bearer <controlToken>`.
   */
  controlToken: string;
  users: SandboxUser[];
}

export interface SandboxOptions {
  /**
   * `in-process` (the default) runs the server in this process: fastest to start, shares its event
   * loop. `child` runs `cardbazaar serve` as a child process, as a CI job would.
   */
  mode?: 'in-process' | 'child';
  /** `:memory:` by default: nothing touches the disk and every sandbox starts from the demo data. */
  databaseUrl?: string;
  /** 0 (any free port) by default. */
  port?: number;
  host?: string;
  /** More settings by environment variable name (docs/running-a-marketplace.md, "Settings"), e.g. `{ LIMITS_ENABLED: 'false' }`. */
  env?: Record<string, string>;
}

export interface Sandbox extends SandboxDocument {
  /** Stops the server (in-flight requests finish) and, in `child` mode, waits for the process to end. */
  stop(): Promise<void>;
}
