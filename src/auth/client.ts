import { randomBytes } from 'node:crypto';
import { baseStringCandidates, percentEncode, sign, signingKey } from './oauth.js';

/**
 * The client side of the signature, for the CLI's `request` command and the benchmarks: builds the
 * Authorization header MKM clients send (realm first, values raw). Tests use an independent
 * implementation instead, so a shared mistake here cannot make them pass.
 */
export interface ClientCredentials {
  appToken: string;
  appSecret: string;
  accessToken: string;
  accessTokenSecret: string;
}

export function authorizationHeader(method: string, url: string, cred: ClientCredentials): string {
  const u = new URL(url);
  const origin = `${u.protocol}//${u.host}`;
  const oauth: Array<[string, string]> = [
    ['oauth_consumer_key', cred.appToken],
    ['oauth_token', cred.accessToken],
    ['oauth_nonce', randomBytes(12).toString('hex')],
    ['oauth_timestamp', String(Math.floor(Date.now() / 1000))],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_version', '1.0'],
  ];
  const [base] = baseStringCandidates({
    method,
    origin,
    path: u.pathname,
    rawQuery: u.search.slice(1),
    oauthParams: oauth,
  });
  const signature = sign(base!, signingKey(cred.appSecret, cred.accessTokenSecret));
  const realm = `${origin}${u.pathname}`;
  const parts = [
    `realm="${realm}"`,
    ...oauth.map(([k, v]) => `${k}="${v}"`),
    `oauth_signature="${signature}"`,
  ];
  return `OAuth ${parts.join(', ')}`;
}

export { percentEncode };
