import type { FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../errors.js';
import type { Config } from '../config.js';
import { liveHostOrigins } from '../http/live-hosts.js';
import { publicOrigin, rawPathAndQuery } from '../http/origin.js';
import type { RouteGuard } from '../http/routing.js';
import type { Services } from '../services.js';
import { credentialState, findAccessToken, findAppByTokenHash } from '../store/apps.js';
import type { AppKind } from '../store/schema.js';
import { accessTokenCredential, appCredential } from './apps.js';
import { type CachedApp, type CachedToken, cacheApp, cachedApp, cachedToken, cacheToken } from './cache.js';
import { hashToken } from './credentials.js';
import {
  type HeaderParams,
  OAuthHeaderError,
  parseAuthorizationHeader,
  type SignatureInput,
  SigningKey,
  signingKey,
  verifySignature,
} from './oauth.js';

/** Who is calling: set on every authenticated request, read by routes and limits. */
export interface AuthContext {
  idApp: number;
  kind: AppKind;
  /** The app's owner (whose account type sets the quota). */
  idOwner: number;
  /** The user the request acts for; null for widget apps, which act for nobody. */
  idUser: number | null;
  idAccessToken: number | null;
  /**
   * Routes signed by the app alone (`POST /access`): the `oauth_token` the header carried (empty, or
   * the request token), which was not looked up as an access token.
   */
  oauthToken?: string;
  /** Routes signed by the app alone: the app token (`oauth_consumer_key`) they were signed with. */
  appToken?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/** The sandbox tells client developers what the server signed; production never does. */
export const BASE_STRING_HEADER = 'X-OAuth-Base-String';

const REQUIRED = [
  'oauth_consumer_key',
  'oauth_nonce',
  'oauth_timestamp',
  'oauth_signature_method',
  'oauth_signature',
];

/**
 * Bounds on what a header can make the server hold: every nonce is stored for the length of the
 * timestamp window, so a client could otherwise park kilobytes per request there. Real clients send
 * nonces of 13 to 43 characters and tokens and signatures of a few dozen.
 */
export const MAX_NONCE_LENGTH = 64;
export const MAX_OAUTH_VALUE_LENGTH = 512;

function checkParameterLengths(params: HeaderParams): void {
  // forEach: a `for…of` makes an entry array per parameter.
  params.forEach(checkParameterLength);
}

function checkParameterLength(value: string, name: string): void {
  // Within the smaller bound (the nonce's): the usual case, settled without looking at the name.
  if (value.length <= MAX_NONCE_LENGTH || !name.startsWith('oauth_')) return;
  const max = name === 'oauth_nonce' ? MAX_NONCE_LENGTH : MAX_OAUTH_VALUE_LENGTH;
  if (value.length > max) {
    throw unauthorized(`${name} is ${value.length} characters long; at most ${max} are accepted.`, {
      code: 'malformed_header',
      field: name,
    });
  }
}

/**
 * `signedByApp`: the route is signed with the app's token and secret alone (the request token
 * exchange, `POST /access`, before the user has an access token): the key is `appSecret&` and
 * `oauth_token` (empty, or the request token) is handed to the route instead of being looked up.
 */
export async function authenticate(
  request: FastifyRequest,
  services: Services,
  signedByApp = false,
): Promise<AuthContext> {
  const header = request.headers.authorization;
  if (!header) {
    throw unauthorized(
      'Authorization header missing: every request must be signed with OAuth 1.0 (Authorization: OAuth realm="…", oauth_consumer_key="…", …).',
      { code: 'missing_header' },
    );
  }
  let params: HeaderParams;
  let oauthParams: Array<[string, string]>;
  try {
    ({ params, oauthParams } = parseAuthorizationHeader(header));
  } catch (err) {
    if (err instanceof OAuthHeaderError) throw unauthorized(err.message, { code: 'malformed_header' });
    throw err;
  }
  checkParameterLengths(params);
  if (!params.has('realm')) {
    throw unauthorized('The OAuth header needs a realm: the request URL without its query string.', {
      code: 'missing_parameter',
      field: 'realm',
    });
  }
  for (const name of REQUIRED) {
    if (!params.get(name)) {
      throw unauthorized(`The OAuth header needs ${name}.`, { code: 'missing_parameter', field: name });
    }
  }
  if (!params.has('oauth_token')) {
    throw unauthorized(
      'The OAuth header needs oauth_token (the access token; an empty string for widget apps).',
      {
        code: 'missing_parameter',
        field: 'oauth_token',
      },
    );
  }
  if (params.get('oauth_signature_method') !== 'HMAC-SHA1') {
    throw unauthorized('oauth_signature_method must be HMAC-SHA1.', { code: 'unsupported_signature_method' });
  }
  const version = params.get('oauth_version');
  if (version !== undefined && version !== '1.0') {
    throw unauthorized('oauth_version must be 1.0.', { code: 'unsupported_version' });
  }

  const db = services.database.db;
  // Read before any credential row: rows read after it are at least this fresh, so an entry
  // checked at this version has seen every revocation the version has.
  // The sandbox's control rows carry it, read after this request arrived too (`control.ts`).
  const credentialsVersion = request.credentialsVersion ?? (await services.credentialsVersion.current());
  const now = services.wallClock.now();
  const appToken = params.get('oauth_consumer_key')!;
  let appEntry = cachedApp(appToken, now);
  let appFromCache = appEntry !== undefined;
  if (!appEntry) {
    const looked = await lookUpOnce(appLookups, appToken, () =>
      lookUpApp(services, appToken, credentialsVersion, now),
    );
    appEntry = looked.entry;
    appFromCache = looked.joined;
  }
  if (!appEntry) throw unauthorized('Unknown app token (oauth_consumer_key).', { code: 'unknown_app_token' });
  const app = appEntry.app;
  // From here on a failure goes to the request log of the app's owner (or the token's user, below).
  request.logUser = app.idUser;
  request.logApp = app.idApp;

  const tokenValue = params.get('oauth_token')!;
  let tokenEntry: CachedToken | undefined;
  let tokenFromCache = false;
  if (app.kind !== 'widget' && tokenValue !== '' && !signedByApp) {
    tokenEntry = cachedToken(app.idApp, tokenValue, now);
    tokenFromCache = tokenEntry !== undefined;
    if (!tokenEntry) {
      const entry = appEntry;
      const looked = await lookUpOnce(tokenLookups, `${app.idApp}:${tokenValue}`, () =>
        lookUpToken(services, entry, tokenValue, credentialsVersion, now),
      );
      tokenEntry = looked.entry;
      tokenFromCache = looked.joined;
    }
  }

  // Something was revoked somewhere since a cached entry was checked (a logout, `token revoke` in
  // another process, another instance): read whether this app and token are still live.
  let appRevokedAt = app.revokedAt;
  let tokenRevokedAt = tokenEntry?.token.revokedAt ?? null;
  if (
    (appFromCache && appEntry.checkedAt !== credentialsVersion) ||
    (tokenFromCache && tokenEntry!.checkedAt !== credentialsVersion)
  ) {
    const live = await credentialState(db, app.idApp, tokenEntry?.token.idAccessToken ?? 0);
    if (!live) throw unauthorized('Unknown app token (oauth_consumer_key).', { code: 'unknown_app_token' });
    appRevokedAt = live.appRevokedAt;
    tokenRevokedAt = live.tokenRevokedAt;
    if (tokenEntry && live.idAccessToken === null) tokenEntry = undefined;
    if (appRevokedAt === null && tokenRevokedAt === null) {
      appEntry.checkedAt = credentialsVersion;
      if (tokenEntry) tokenEntry.checkedAt = credentialsVersion;
    }
  }
  if (appRevokedAt !== null) throw unauthorized('This app has been revoked.', { code: 'revoked_app' });

  let idUser: number | null = null;
  let idAccessToken: number | null = null;
  let key: SigningKey = appEntry.widgetKey;
  if (signedByApp) {
    // Signed with the app's secret and an empty token secret, whatever oauth_token holds.
  } else if (app.kind === 'widget') {
    if (tokenValue !== '') {
      throw unauthorized(
        'Widget apps have no access token: send oauth_token="" and sign with an empty token secret.',
        {
          code: 'unknown_access_token',
        },
      );
    }
  } else {
    if (tokenValue === '') {
      throw unauthorized('oauth_token (the access token) is empty; only widget apps sign without one.', {
        code: 'missing_access_token',
      });
    }
    if (!tokenEntry) {
      throw unauthorized('Unknown access token (oauth_token) for this app.', {
        code: 'unknown_access_token',
      });
    }
    const token = tokenEntry.token;
    request.logUser = token.idUser;
    if (tokenRevokedAt !== null) {
      throw unauthorized('This access token has been revoked.', { code: 'revoked_access_token' });
    }
    if (token.expiresAt !== null && token.expiresAt <= services.clock.now()) {
      throw unauthorized('This access token has expired.', { code: 'expired_access_token' });
    }
    idUser = token.idUser;
    idAccessToken = token.idAccessToken;
    key = tokenEntry.key;
  }

  // Clients sign with their own clock, so the window is measured against real time, never the
  // sandbox's movable marketplace clock.
  const timestamp = params.get('oauth_timestamp')!;
  const windowSeconds = services.config.oauthWindowSeconds;
  const nowSeconds = Math.floor(now / 1000);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > windowSeconds) {
    throw unauthorized(
      `oauth_timestamp ${timestamp} is more than ${windowSeconds} seconds away from the server time ${nowSeconds}; sign with the current Unix time in seconds.`,
      { code: 'stale_timestamp' },
    );
  }

  const own = publicOrigin(request, services.config);
  if (own.unverifiedLive !== undefined) {
    // A live host's name is no address of this server's: verifying over it would accept the live
    // client however LIVE_HOSTS is set.
    const live = services.config.mode === 'sandbox' ? services.config.liveHosts.join(', ') : '';
    throw unauthorized(
      `This request is addressed to ${own.unverifiedLive}, a live host, and this server does not accept signatures made for it (LIVE_HOSTS is ${live || 'empty'}): add it to LIVE_HOSTS (sandbox only), or address the server by its own name.`,
      { code: 'live_host_not_accepted' },
    );
  }
  const { path, query } = rawPathAndQuery(request);
  const signature = params.get('oauth_signature')!;
  const signed: SignatureInput = {
    method: request.method,
    origin: own.origin,
    path: own.basePath + path,
    rawQuery: query,
    oauthParams,
  };
  // A request addressed to a live host (sandbox) was signed for `https://<that host>`: tried first.
  // Any other is checked against the server's own URL, as always; the live hosts only when that fails.
  const first = own.live === undefined ? signed : { ...signed, origin: own.live, path };
  const result = verifySignature(first, signature, key);
  if (result.ok) {
    if (first !== signed) request.logSignedOver = own.live!;
  } else {
    const others = otherSigningUrls(services.config, signed, first, path);
    const over = others.find((input) => verifySignature(input, signature, key).ok);
    if (over === undefined) {
      // Spec §7: a redirected request signed for the original URL is a 403, so the client learns
      // to sign the 307's Location itself rather than that its keys are wrong.
      for (const tried of [first, ...others]) {
        for (const original of beforeRedirect(tried)) {
          if (verifySignature(original, signature, key).ok) {
            throw forbidden(
              'This request is signed for the URL without the pagination the 307 redirect added: a redirected request needs a signature of its own. Sign the exact URL of the Location header (its path and its start and maxResults parameters) and send it again.',
              { code: 'redirect_not_resigned' },
            );
          }
        }
      }
      if (services.config.mode === 'sandbox') {
        const live = liveHostOrigins(services.config);
        const also =
          live.length > 0
            ? ` (checked for this server's address and for the live hosts in LIVE_HOSTS: ${live.join(', ')})`
            : '';
        throw unauthorized(
          `Invalid signature${also}. The server signed this base string (sandbox mode shows it; production does not): ${result.canonicalBaseString}`,
          { code: 'invalid_signature', headers: { [BASE_STRING_HEADER]: result.canonicalBaseString } },
        );
      }
      throw unauthorized('Invalid signature.', { code: 'invalid_signature' });
    }
    if (over !== signed) request.logSignedOver = over.origin;
  }

  const nonceKey = `${app.idApp}:${idAccessToken ?? 0}:${params.get('oauth_nonce')}`;
  if (await services.nonces.seen({ timestamp: Number(timestamp), nonceKey }, windowSeconds)) {
    throw unauthorized('This oauth_nonce has been used already: every request needs a new nonce.', {
      code: 'reused_nonce',
    });
  }

  const auth: AuthContext = { idApp: app.idApp, kind: app.kind, idOwner: app.idUser, idUser, idAccessToken };
  if (signedByApp) {
    auth.oauthToken = tokenValue;
    auth.appToken = appToken;
  }
  return auth;
}

/**
 * Lookups of credentials missing from the cache, while they run, by token as sent: the requests in
 * flight when an entry expires (every connection of a busy client) wait for one query and one
 * derivation of the secrets instead of each making its own. A request that waited for another's
 * lookup takes the entry as a cached one: checked against its own credentials version, since the
 * row may have been read before that version.
 */
const appLookups = new Map<string, Promise<CachedApp | undefined>>();
const tokenLookups = new Map<string, Promise<CachedToken | undefined>>();

/** `look()` unless a lookup of `key` is running, whose entry is then taken (`joined`). */
async function lookUpOnce<T>(
  running: Map<string, Promise<T | undefined>>,
  key: string,
  look: () => Promise<T | undefined>,
): Promise<{ entry: T | undefined; joined: boolean }> {
  const pending = running.get(key);
  if (pending) return { entry: await pending, joined: true };
  const lookup = look();
  running.set(key, lookup);
  try {
    return { entry: await lookup, joined: false };
  } finally {
    running.delete(key);
  }
}

async function lookUpApp(
  services: Services,
  appToken: string,
  credentialsVersion: string,
  now: number,
): Promise<CachedApp | undefined> {
  const found = await findAppByTokenHash(services.database.db, hashToken(appToken));
  if (!found) return undefined;
  const secret = appCredential(services.serverKey, found).secret;
  const entry: CachedApp = {
    app: found,
    checkedAt: credentialsVersion,
    secret,
    widgetKey: new SigningKey(signingKey(secret, '')),
  };
  cacheApp(appToken, entry, now);
  return entry;
}

async function lookUpToken(
  services: Services,
  appEntry: CachedApp,
  tokenValue: string,
  credentialsVersion: string,
  now: number,
): Promise<CachedToken | undefined> {
  const idApp = appEntry.app.idApp;
  const found = await findAccessToken(services.database.db, idApp, hashToken(tokenValue));
  if (!found) return undefined;
  const tokenSecret = accessTokenCredential(services.serverKey, found).secret;
  const entry: CachedToken = {
    token: found,
    checkedAt: credentialsVersion,
    key: new SigningKey(signingKey(appEntry.secret, tokenSecret)),
  };
  cacheToken(idApp, tokenValue, entry, now);
  return entry;
}

/**
 * Where else a request whose first check failed may have been signed for (sandbox): the server's own
 * URL when a live host was tried first, then every other live host of LIVE_HOSTS as `https://host`
 * with the path as sent. Empty when there are no live hosts (production).
 */
function otherSigningUrls(
  config: Config,
  signed: SignatureInput,
  first: SignatureInput,
  path: string,
): SignatureInput[] {
  const out: SignatureInput[] = first === signed ? [] : [signed];
  for (const origin of liveHostOrigins(config)) {
    if (origin !== first.origin) out.push({ ...signed, origin, path });
  }
  return out;
}

/**
 * The URLs a request could have been signed for before a pagination redirect (`paginatedLocation`
 * adds `start` and `maxResults` to the query, or a `/1` to the path): checked only when the
 * signature failed, so they cost nothing on the requests that pass.
 */
function beforeRedirect(signed: SignatureInput): SignatureInput[] {
  const out: SignatureInput[] = [];
  const pairs = signed.rawQuery.split('&').filter((p) => p !== '');
  const kept = pairs.filter((p) => !/^(start|maxResults)(=|$)/.test(p));
  if (kept.length < pairs.length) out.push({ ...signed, rawQuery: kept.join('&') });
  if (/\/1\/?$/.test(signed.path)) out.push({ ...signed, path: signed.path.replace(/\/1\/?$/, '') });
  return out;
}

const KIND_NAMES: Record<AppKind, string> = {
  dedicated: 'dedicated',
  widget: 'widget',
  thirdParty: 'third-party',
};

/** The route-level hook: OAuth, then 403 for an app kind the route does not admit. */
export function authenticationHook(
  services: Services,
  kinds: readonly AppKind[],
  signedByApp = false,
): RouteGuard {
  const admitted = kinds.map((k) => KIND_NAMES[k]).join(', ');
  return async (request) => {
    const auth = await authenticate(request, services, signedByApp);
    request.auth = auth;
    request.logUser = auth.idUser ?? auth.idOwner;
    if (!kinds.includes(auth.kind)) {
      throw forbidden(
        `This resource is not available to ${KIND_NAMES[auth.kind]} apps (it admits ${admitted} apps).`,
        {
          code: 'app_kind_not_allowed',
        },
      );
    }
  };
}
