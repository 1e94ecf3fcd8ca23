import { createHmac, randomBytes } from 'node:crypto';
import { percentEncode, signingKey } from './oauth.js';

/**
 * The client side of the signature, for the CLI's `request` command and the benchmarks: builds the
 * Authorization header MKM clients send (realm first, values raw). Tests use an independent
 * implementation instead, so a shared mistake here cannot make them pass.
 *
 * The parts that do not change between requests to one URL are prepared once, so the benchmarks'
 * load generator can sign a fresh nonce per request at a few microseconds each.
 */
export interface ClientCredentials {
  appToken: string;
  appSecret: string;
  accessToken: string;
  accessTokenSecret: string;
}

interface PreparedUrl {
  realm: string;
  /** `METHOD&url&` and the encoded parameters before and after the nonce/timestamp slots. */
  prefix: string;
  /** Sorted encoded parameters, with NONCE and TIMESTAMP markers. */
  params: Array<[string, string]>;
}

const NONCE = '\u0000nonce';
const TIMESTAMP = '\u0000timestamp';
const prepared = new Map<string, PreparedUrl>();
const noncePrefix = randomBytes(6).toString('hex');
let nonceCounter = 0;

function prepare(method: string, url: string, cred: ClientCredentials): PreparedUrl {
  const key = `${method} ${url} ${cred.appToken} ${cred.accessToken}`;
  let p = prepared.get(key);
  if (p) return p;
  const u = new URL(url);
  const realm = `${u.protocol}//${u.host}${u.pathname}`;
  const query: Array<[string, string]> = u.search
    .slice(1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      return i === -1 ? [dec(pair), ''] : [dec(pair.slice(0, i)), dec(pair.slice(i + 1))];
    });
  const params = [
    ['oauth_consumer_key', cred.appToken],
    ['oauth_token', cred.accessToken],
    ['oauth_nonce', NONCE],
    ['oauth_timestamp', TIMESTAMP],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_version', '1.0'],
    ...query,
  ]
    .map(([k, v]): [string, string] => [
      percentEncode(k!),
      v === NONCE || v === TIMESTAMP ? v : percentEncode(v!),
    ])
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  p = { realm, prefix: `${method.toUpperCase()}&${percentEncode(realm)}&`, params };
  if (prepared.size > 1000) prepared.clear();
  prepared.set(key, p);
  return p;
}

export function authorizationHeader(method: string, url: string, cred: ClientCredentials): string {
  const p = prepare(method, url, cred);
  const nonce = `${noncePrefix}${(nonceCounter++).toString(36)}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const paramString = p.params
    .map(([k, v]) => `${k}=${v === NONCE ? nonce : v === TIMESTAMP ? timestamp : v}`)
    .join('&');
  const signature = createHmac('sha1', signingKey(cred.appSecret, cred.accessTokenSecret))
    .update(p.prefix + percentEncode(paramString))
    .digest('base64');
  return (
    `OAuth realm="${p.realm}", oauth_consumer_key="${cred.appToken}", oauth_token="${cred.accessToken}", ` +
    `oauth_nonce="${nonce}", oauth_timestamp="${timestamp}", oauth_signature_method="HMAC-SHA1", ` +
    `oauth_version="1.0", oauth_signature="${signature}"`
  );
}
