// A client with the live host built in, as the end-to-end tests of "Clients with the live host built
// in" run it: a process of its own (Node reads NODE_EXTRA_CA_CERTS, the trusted authority, at start),
// signing with an OAuth library of its own (oauth-1.0a) over the live URL it was written for, and
// reaching the sandbox only through name resolution: a fixed answer (what an /etc/hosts line does)
// or a DNS resolver (`cardbazaar dns`). The port is the one a forward from 443 would lead to; the
// Host header and the signed URL carry no port, as the live client's do.
//
// Environment: LIVE_URL (what it signs and asks for), METHOD, PORT (where 443 leads), SCHEME (`http`:
// the same request in clear, as a TLS-terminating proxy in front of a server hands it on), RESOLVE
// (`fixed:ADDRESS` or `dns:ADDRESS:PORT`), APP_TOKEN, APP_SECRET, ACCESS_TOKEN, ACCESS_TOKEN_SECRET,
// optional BODY and CONTENT_TYPE. Prints one JSON line: { status, body } or { error }.
import { createHmac } from 'node:crypto';
import { Resolver } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import OAuth from 'oauth-1.0a';

const env = process.env;
const url = new URL(env.LIVE_URL);
const method = env.METHOD ?? 'GET';

function lookupWith(spec) {
  if (spec.startsWith('fixed:')) {
    const address = spec.slice('fixed:'.length);
    return (_hostname, options, callback) => {
      const family = address.includes(':') ? 6 : 4;
      if (options && options.all) callback(null, [{ address, family }]);
      else callback(null, address, family);
    };
  }
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([spec.slice('dns:'.length)]);
  return (hostname, options, callback) => {
    resolver.resolve4(hostname, (err, addresses) => {
      if (err) return callback(err);
      if (options && options.all)
        callback(
          null,
          addresses.map((address) => ({ address, family: 4 })),
        );
      else callback(null, addresses[0], 4);
    });
  };
}

const realm = `${url.origin}${url.pathname}`;
const oauth = new OAuth({
  consumer: { key: env.APP_TOKEN, secret: env.APP_SECRET },
  signature_method: 'HMAC-SHA1',
  hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  realm,
});
const authorization = oauth.toHeader(
  oauth.authorize(
    { url: url.href, method },
    { key: env.ACCESS_TOKEN ?? '', secret: env.ACCESS_TOKEN_SECRET ?? '' },
  ),
).Authorization;

const headers = { host: url.host, authorization };
if (env.BODY !== undefined) headers['content-type'] = env.CONTENT_TYPE ?? 'application/xml';

const request = env.SCHEME === 'http' ? httpRequest : httpsRequest;
const req = request(
  {
    host: url.hostname,
    servername: url.hostname,
    port: Number(env.PORT),
    path: `${url.pathname}${url.search}`,
    method,
    headers,
    lookup: lookupWith(env.RESOLVE),
    timeout: 15_000,
  },
  (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => (body += chunk));
    res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, body })));
  },
);
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', (err) => console.log(JSON.stringify({ error: `${err.code ?? ''} ${err.message}` })));
if (env.BODY !== undefined) req.write(env.BODY);
req.end();
