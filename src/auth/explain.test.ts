import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import OAuth from 'oauth-1.0a';
import { explainSignature, firstDifference, splitUrl } from './explain.js';

/**
 * The debugger against the independent signer the HTTP suites use (`oauth-1.0a`), and against the
 * mistakes client authors make most, each of which it must name.
 */
const consumer = { key: 'app-token-123', secret: 'app-secret-abc/+=' };
const token = { key: 'access-token-456', secret: 'token-secret-def' };

function signer(realm: string) {
  return new OAuth({
    consumer,
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
    realm,
  });
}

/** The header oauth-1.0a makes for `signUrl`, with the realm of `realmUrl`. */
function header(
  method: string,
  signUrl: string,
  options: { realm?: string; data?: Record<string, string>; tokenSecret?: string; oauth?: OAuth } = {},
) {
  const realm = options.realm ?? signUrl.split('?')[0]!;
  const oauth = options.oauth ?? signer(realm);
  const data = oauth.authorize(
    { url: signUrl, method, data: options.data },
    { key: token.key, secret: options.tokenSecret ?? token.secret },
  );
  return { authorization: oauth.toHeader(data).Authorization, oauth, data };
}

const explain = (
  method: string,
  url: string,
  authorization: string,
  extra: { clientBaseString?: string } = {},
) =>
  explainSignature({
    method,
    url,
    authorization,
    consumerSecret: consumer.secret,
    tokenSecret: token.secret,
    ...extra,
  });

describe('the signature debugger', () => {
  it('agrees with the independent signer step by step on a correct request', () => {
    const url =
      'http://127.0.0.1:8080/ws/v2.0/output.json/products/find?search=black%20lotus&idGame=1&exact=false';
    const { authorization, oauth, data } = header('GET', url);
    const e = explain('get', url, authorization);
    const { oauth_signature: signature, ...unsigned } = data;
    assert.equal(e.verdict, 'valid');
    assert.deepEqual(e.problems, []);
    assert.equal(e.method, 'GET');
    assert.equal(e.origin, 'http://127.0.0.1:8080');
    assert.equal(e.path, '/ws/v2.0/output.json/products/find');
    const unsignedData = unsigned as OAuth.Authorization;
    assert.equal(e.baseString, oauth.getBaseString({ url, method: 'GET' }, unsignedData));
    assert.equal(e.parameterString, oauth.getParameterString({ url, method: 'GET' }, unsignedData));
    assert.equal(e.expectedSignature, signature);
    assert.equal(e.sentSignature, signature);
    assert.deepEqual(e.mistakes, []);
    assert.equal(e.difference, undefined);
    const search = e.parameters.find((p) => p.name === 'search')!;
    assert.deepEqual(search, { name: 'search', value: 'black lotus', source: 'query', signed: true });
    assert.deepEqual(
      e.parameters.filter((p) => !p.signed).map((p) => p.name),
      ['realm', 'oauth_signature'],
    );
    assert.deepEqual(
      e.normalized.map(([k]) => k),
      [
        'exact',
        'idGame',
        'oauth_consumer_key',
        'oauth_nonce',
        'oauth_signature_method',
        'oauth_timestamp',
        'oauth_token',
        'oauth_version',
        'search',
      ],
    );
    assert.equal(e.maskedKey, 'ap•••••• (17)&to•••••• (16)');
    assert.ok(!e.maskedKey.includes(consumer.secret) && !e.maskedKey.includes(token.secret));
  });

  it('names a query left out of the signature, and where the base strings part', () => {
    const url = 'https://api.example.org/ws/v2.0/games?lang=de';
    const { authorization } = header('GET', 'https://api.example.org/ws/v2.0/games');
    const e = explain('GET', url, authorization);
    assert.equal(e.verdict, 'mismatch');
    assert.deepEqual(
      e.mistakes.map((m) => m.code),
      ['query_left_out'],
    );
    assert.equal(e.difference?.part, 'parameters');
    assert.equal(e.difference?.parameter, 'lang');
  });

  it('names a port left out', () => {
    const { authorization } = header('GET', 'http://localhost/ws/v2.0/account', {
      realm: 'http://localhost:8080/ws/v2.0/account',
    });
    const e = explain('GET', 'http://localhost:8080/ws/v2.0/account', authorization);
    assert.deepEqual(
      e.mistakes.map((m) => m.code),
      ['port_left_out'],
    );
    assert.equal(e.difference?.part, 'url');
    assert.match(e.difference!.expected, /localhost%3A8080/);
  });

  it('names a space encoded as + in the parameter string', () => {
    const url = 'http://localhost:8080/ws/v2.0/products/find?search=black%20lotus';
    const oauth = signer(url.split('?')[0]!);
    oauth.percentEncode = (s: string) =>
      encodeURIComponent(s)
        .replace(/%20/g, '+')
        .replace(/[!*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const { authorization } = header('GET', url, { oauth });
    const e = explain('GET', url, authorization);
    assert.deepEqual(
      e.mistakes.map((m) => m.code),
      ['plus_for_space'],
    );
    assert.equal(e.difference?.parameter, 'search');
  });

  it('names a realm that was signed', () => {
    const url = 'http://localhost:8080/ws/v2.0/account';
    const { authorization } = header('GET', url, { data: { realm: url } });
    const e = explain('GET', url, authorization);
    assert.deepEqual(
      e.mistakes.map((m) => m.code),
      ['realm_signed'],
    );
    assert.equal(e.difference?.parameter, 'realm');
  });

  it('names a signature percent-encoded twice', () => {
    const url = 'http://localhost:8080/ws/v2.0/account';
    const { authorization, data } = header('GET', url);
    const twice = encodeURIComponent(encodeURIComponent(data.oauth_signature));
    assert.match(twice, /%25/, 'the signature holds characters that get encoded');
    const sent = authorization.replace(/oauth_signature="[^"]*"/, `oauth_signature="${twice}"`);
    const e = explain('GET', url, sent);
    assert.equal(e.verdict, 'mismatch');
    assert.deepEqual(
      e.mistakes.map((m) => m.code),
      ['double_encoded_signature'],
    );
    assert.equal(e.sentSignature, encodeURIComponent(data.oauth_signature));
    assert.equal(e.difference, undefined, 'the base strings are the same');
  });

  it('names a token secret left out of the key, and names nothing for a wrong secret', () => {
    const url = 'http://localhost:8080/ws/v2.0/account';
    const e = explain('GET', url, header('GET', url, { tokenSecret: '' }).authorization);
    assert.deepEqual(
      e.mistakes.map((m) => m.code),
      ['token_secret_left_out'],
    );
    const wrong = explain('GET', url, header('GET', url, { tokenSecret: 'something else' }).authorization);
    assert.equal(wrong.verdict, 'mismatch');
    assert.deepEqual(wrong.mistakes, []);
  });

  it('accepts what the server accepts (a literal + in the query) and says so', () => {
    const url = 'http://localhost:8080/ws/v2.0/account/messages/find?startDate=2017-12-08T14:41:12+0100';
    const oauth = signer(url.split('?')[0]!);
    // Signed with the + as a literal plus (deParam leaves it), which the server tolerates.
    const { authorization } = header('GET', url, { oauth });
    const e = explain('GET', url, authorization);
    assert.equal(e.verdict, 'accepted');
  });

  it('finds the first difference with a base string the client pasted', () => {
    const url = 'http://localhost:8080/ws/v2.0/account';
    const { authorization } = header('GET', url);
    const good = explain('GET', url, authorization).baseString;
    const pasted = good.replace('oauth_nonce%3D', 'oauth_nonce%3DX');
    const e = explain('GET', url, authorization, { clientBaseString: pasted });
    assert.equal(e.difference?.part, 'parameters');
    assert.equal(e.difference?.parameter, 'oauth_nonce');
    assert.equal(firstDifference('GET&a&b', 'POST&a&b')?.part, 'method');
  });

  it('reports what it cannot read instead of throwing', () => {
    assert.equal(explain('GET', 'not a url', 'OAuth realm="x"').verdict, 'unreadable');
    const e = explain('GET', 'http://localhost/ws/v2.0/account', 'Basic abc');
    assert.equal(e.verdict, 'unreadable');
    assert.match(e.problems[0]!, /OAuth scheme/);
    const missing = explain('GET', 'http://localhost/ws/v2.0/account', 'OAuth oauth_consumer_key="k"');
    assert.equal(missing.verdict, 'no_signature');
    assert.ok(missing.problems.some((p) => /realm/.test(p)));
    assert.ok(missing.problems.some((p) => /oauth_nonce/.test(p)));
    assert.deepEqual(splitUrl('HTTPS://Example.org:443/a?b=1#f'), {
      origin: 'https://example.org',
      path: '/a',
      rawQuery: 'b=1',
    });
  });
});
