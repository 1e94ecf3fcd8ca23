import { LIVE_HOST_NAMES } from '../config.js';
import {
  joinBaseString,
  type HeaderParams,
  normalizedParameters,
  OAuthHeaderError,
  parameterString,
  parseAuthorizationHeader,
  percentDecode,
  type SignatureInput,
  sign,
  signingKey,
  verifySignature,
} from './oauth.js';

/**
 * The signature debugger (docs/testing-your-client.md, "The signature debugger"): the server's own verification, step by
 * step, for a request someone typed in (the website's page and `cardbazaar oauth explain`). Every
 * step is a function of `oauth.ts`, the code that checks real requests; this module only lays the
 * steps out and, when the signature differs, tries the mistakes clients typically make to name the
 * one that explains it.
 */

export interface ExplainInput {
  method: string;
  /** The URL as the client requested it, query included. */
  url: string;
  authorization: string;
  consumerSecret: string;
  tokenSecret: string;
  /** Optional: the base string the client computed, to find the first difference with. */
  clientBaseString?: string;
  /**
   * The live hosts' origins (`https://apiv2.cardmarket.com`, LIVE_HOSTS) the server also accepts
   * signatures for; none in production.
   */
  liveHosts?: readonly string[];
}

export interface ExplainedParameter {
  name: string;
  value: string;
  source: 'header' | 'query';
  /** `realm` and `oauth_signature` are in the header but not signed; other header names are ignored. */
  signed: boolean;
}

export type MistakeCode =
  | 'query_left_out'
  | 'port_left_out'
  | 'default_port_included'
  | 'scheme_differs'
  | 'plus_for_space'
  | 'realm_signed'
  | 'double_encoded_signature'
  | 'token_secret_left_out';

export interface Mistake {
  code: MistakeCode;
  /** The base string the client must have signed, when the mistake is in the base string. */
  baseString?: string;
}

export interface Difference {
  /** 0-based position in the base string. */
  index: number;
  /** Which part of the base string: the method, the URL or the parameters. */
  part: 'method' | 'url' | 'parameters';
  /** The parameter whose name or value differs first, when the difference is in the parameters. */
  parameter?: string;
  expected: string;
  client: string;
}

export type Verdict =
  /** The sent signature is the one the server computes from the RFC 5849 base string. */
  | 'valid'
  /** Accepted by the server through one of the tolerated forms (`baseStringCandidates`). */
  | 'accepted'
  | 'mismatch'
  | 'no_signature'
  /** The URL or the header could not be read: nothing to compute. */
  | 'unreadable';

export interface Explanation {
  verdict: Verdict;
  /** What stops the request before or beside the signature check (missing parameters…). */
  problems: string[];
  method: string;
  origin: string;
  path: string;
  rawQuery: string;
  parameters: ExplainedParameter[];
  /** The encoded, sorted pairs and their string (RFC 5849 §3.4.1.3.2). */
  normalized: Array<[string, string]>;
  parameterString: string;
  baseString: string;
  /** `consumerSecret&tokenSecret` with both secrets masked. */
  maskedKey: string;
  expectedSignature: string;
  sentSignature: string | undefined;
  mistakes: Mistake[];
  difference: Difference | undefined;
  /**
   * The live host (`https://…`) the signature verified over, when it did: the URL typed in, or
   * another live host with the same path and query (the steps are then those of that URL).
   */
  liveHost: string | undefined;
}

const REQUIRED = [
  'oauth_consumer_key',
  'oauth_token',
  'oauth_nonce',
  'oauth_timestamp',
  'oauth_signature_method',
];

/** `https://Host:443/p?q` → origin `https://host`, raw path and query, as the server reads a request. */
export function splitUrl(url: string): { origin: string; path: string; rawQuery: string } | undefined {
  const m = /^\s*([a-z][a-z0-9+.-]*):\/\/([^/?#\s]+)([^?#\s]*)(?:\?([^#\s]*))?(?:#\S*)?\s*$/i.exec(url);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  let host = m[2]!.toLowerCase();
  if (scheme === 'http' && host.endsWith(':80')) host = host.slice(0, -3);
  if (scheme === 'https' && host.endsWith(':443')) host = host.slice(0, -4);
  return { origin: `${scheme}://${host}`, path: m[3] || '/', rawQuery: m[4] ?? '' };
}

/** A secret as the page shows it: its first two characters and its length. */
export function maskSecret(secret: string): string {
  if (secret === '') return '';
  return `${secret.slice(0, 2)}${'•'.repeat(6)} (${secret.length})`;
}

function matches(sent: string, base: string, key: string): boolean {
  return sent === sign(base, key);
}

export function explainSignature(input: ExplainInput): Explanation {
  const problems: string[] = [];
  const method = input.method.trim().toUpperCase() || 'GET';
  const url = splitUrl(input.url);
  const empty: Explanation = {
    verdict: 'unreadable',
    problems,
    method,
    origin: url?.origin ?? '',
    path: url?.path ?? '',
    rawQuery: url?.rawQuery ?? '',
    parameters: [],
    normalized: [],
    parameterString: '',
    baseString: '',
    maskedKey: `${maskSecret(input.consumerSecret)}&${maskSecret(input.tokenSecret)}`,
    expectedSignature: '',
    sentSignature: undefined,
    mistakes: [],
    difference: undefined,
    liveHost: undefined,
  };
  if (!url) {
    problems.push(
      'The URL must be absolute: scheme, host, path and query, e.g. https://host/ws/v2.0/account.',
    );
    return empty;
  }
  let header: HeaderParams;
  try {
    header = parseAuthorizationHeader(input.authorization).params;
  } catch (err) {
    if (!(err instanceof OAuthHeaderError)) throw err;
    problems.push(err.message);
    return empty;
  }

  const parameters: ExplainedParameter[] = [];
  const oauthParams: Array<[string, string]> = [];
  for (const [name, value] of header) {
    const signed = name.startsWith('oauth_') && name !== 'oauth_signature';
    parameters.push({ name, value, source: 'header', signed });
    if (signed) oauthParams.push([name, value]);
  }
  for (const part of url.rawQuery.split('&')) {
    if (part === '') continue;
    const i = part.indexOf('=');
    const decode = (s: string) => percentDecode(s.replace(/\+/g, ' '));
    parameters.push({
      name: decode(i === -1 ? part : part.slice(0, i)),
      value: decode(i === -1 ? '' : part.slice(i + 1)),
      source: 'query',
      signed: true,
    });
  }
  if (!header.has('realm')) problems.push('The header has no realm (the request URL without its query).');
  for (const name of REQUIRED) {
    if (!header.has(name)) problems.push(`The header has no ${name}.`);
  }
  const methodName = header.get('oauth_signature_method');
  if (methodName !== undefined && methodName !== 'HMAC-SHA1') {
    problems.push(`oauth_signature_method is ${methodName}; the server checks HMAC-SHA1 only.`);
  }
  const version = header.get('oauth_version');
  if (version !== undefined && version !== '1.0')
    problems.push(`oauth_version is ${version}; it must be 1.0.`);
  const addressedHost = url.origin.replace(/^[a-z]+:\/\//, '').replace(/:\d+$/, '');
  if (
    input.liveHosts !== undefined &&
    (LIVE_HOST_NAMES as readonly string[]).includes(addressedHost) &&
    !input.liveHosts.includes(`https://${addressedHost}`)
  ) {
    problems.push(
      `${addressedHost} is a live host this server does not accept signatures for (LIVE_HOSTS, sandbox only): a request addressed to it is refused as live_host_not_accepted.`,
    );
  }

  const signatureInput: SignatureInput = {
    method,
    origin: url.origin,
    path: url.path,
    rawQuery: url.rawQuery,
    oauthParams,
  };
  const normalized = normalizedParameters(signatureInput);
  const params = parameterString(normalized);
  const baseString = joinBaseString(method, url.origin + url.path, params);
  const key = signingKey(input.consumerSecret, input.tokenSecret);
  const expectedSignature = sign(baseString, key);
  const sentSignature = header.get('oauth_signature');

  let verdict: Verdict;
  const mistakes: Mistake[] = [];
  if (sentSignature === undefined || sentSignature === '') {
    verdict = 'no_signature';
  } else if (sentSignature === expectedSignature) {
    verdict = 'valid';
  } else if (verifySignature(signatureInput, sentSignature, key).ok) {
    verdict = 'accepted';
  } else {
    // Signed for a live host rather than the URL typed (a client with the host built in, reaching
    // the sandbox under another name): the steps that matter are those of that URL.
    for (const origin of input.liveHosts ?? []) {
      if (origin === url.origin) continue;
      if (verifySignature({ ...signatureInput, origin }, sentSignature, key).ok) {
        const over = explainSignature({
          ...input,
          url: `${origin}${url.path}${url.rawQuery ? `?${url.rawQuery}` : ''}`,
          liveHosts: undefined,
        });
        return { ...over, liveHost: origin };
      }
    }
    verdict = 'mismatch';
    mistakes.push(...diagnose(signatureInput, sentSignature, key, input, normalized));
  }

  const clientBase = input.clientBaseString?.trim() || mistakes.find((m) => m.baseString)?.baseString;
  return {
    verdict,
    problems,
    method,
    origin: url.origin,
    path: url.path,
    rawQuery: url.rawQuery,
    parameters,
    normalized,
    parameterString: params,
    baseString,
    maskedKey: empty.maskedKey,
    expectedSignature,
    sentSignature,
    mistakes,
    difference: clientBase ? firstDifference(baseString, clientBase) : undefined,
    liveHost:
      (verdict === 'valid' || verdict === 'accepted') && input.liveHosts?.includes(url.origin)
        ? url.origin
        : undefined,
  };
}

/**
 * The usual ways a client signs something other than what the server checks, each tried alone:
 * the ones whose signature is the one sent explain the failure.
 */
function diagnose(
  signed: SignatureInput,
  sent: string,
  key: string,
  input: ExplainInput,
  normalized: Array<[string, string]>,
): Mistake[] {
  const out: Mistake[] = [];
  const baseOf = (over: Partial<SignatureInput>) => {
    const s = { ...signed, ...over };
    return joinBaseString(s.method, s.origin + s.path, parameterString(normalizedParameters(s)));
  };
  const tryBase = (code: MistakeCode, base: string) => {
    if (matches(sent, base, key)) out.push({ code, baseString: base });
  };

  if (signed.rawQuery !== '') tryBase('query_left_out', baseOf({ rawQuery: '' }));
  const port = /:(\d+)$/.exec(signed.origin);
  if (port) tryBase('port_left_out', baseOf({ origin: signed.origin.slice(0, -port[0].length) }));
  else {
    const defaultPort = signed.origin.startsWith('https:') ? ':443' : ':80';
    tryBase('default_port_included', baseOf({ origin: signed.origin + defaultPort }));
  }
  const otherScheme = signed.origin.startsWith('https:')
    ? signed.origin.replace(/^https:/, 'http:')
    : signed.origin.replace(/^http:/, 'https:');
  tryBase('scheme_differs', baseOf({ origin: otherScheme }));
  if (normalized.some(([k, v]) => k.includes('%20') || v.includes('%20'))) {
    // Form encoding: a space written as `+` in the parameter string (then `%2B` in the base string).
    const plus = normalized.map(([k, v]): [string, string] => [
      k.replace(/%20/g, '+'),
      v.replace(/%20/g, '+'),
    ]);
    tryBase(
      'plus_for_space',
      joinBaseString(signed.method, signed.origin + signed.path, parameterString(plus)),
    );
  }
  const realm = parseRealm(input.authorization);
  if (realm !== undefined) {
    tryBase('realm_signed', baseOf({ oauthParams: [...signed.oauthParams, ['realm', realm]] }));
  }
  if (sent.includes('%')) {
    const once = percentDecode(sent);
    if (once !== sent && verifySignature(signed, once, key).ok)
      out.push({ code: 'double_encoded_signature' });
  }
  if (input.tokenSecret !== '') {
    const appOnly = signingKey(input.consumerSecret, '');
    if (verifySignature(signed, sent, appOnly).ok) out.push({ code: 'token_secret_left_out' });
  }
  return out;
}

function parseRealm(header: string): string | undefined {
  try {
    return parseAuthorizationHeader(header).params.get('realm');
  } catch {
    return undefined;
  }
}

/** Where two base strings first differ, named by part (and parameter), with a little context. */
export function firstDifference(expected: string, client: string): Difference | undefined {
  if (expected === client) return undefined;
  let i = 0;
  while (i < expected.length && i < client.length && expected[i] === client[i]) i++;
  const ampersands = (expected.slice(0, i).match(/&/g) ?? []).length;
  const part = ampersands === 0 ? 'method' : ampersands === 1 ? 'url' : 'parameters';
  let parameter: string | undefined;
  if (part === 'parameters') {
    // The parameter string is encoded once more inside the base string: `%26` separates pairs. A
    // pair one side has and the other lacks is named from the side that has it.
    const extra = i >= expected.length || expected.startsWith('%26', i);
    const s = extra ? client : expected;
    const start = s.indexOf('&', s.indexOf('&') + 1) + 1;
    const pairStart = s.startsWith('%26', i) ? i + 3 : Math.max(start, s.lastIndexOf('%26', i - 1) + 3);
    const pair = s.slice(pairStart);
    const name = pair.split('%3D')[0];
    if (name) parameter = percentDecode(percentDecode(name));
  }
  const from = Math.max(0, i - 20);
  return {
    index: i,
    part,
    parameter,
    expected: expected.slice(from, i + 20),
    client: client.slice(from, i + 20),
  };
}
