#!/usr/bin/env node
// An example price bot for cardbazaar (or any server speaking the Marketplace API 2.0), written
// against the public API only, with nothing but Node 20: fetch, and a small OAuth 1.0 signer below.
// Each round it
//   - reads its own stock (GET /stock) and, for each article, the product's offers
//     (GET /articles/:idProduct) and price guide (GET /products/:idProduct);
//   - undercuts the cheapest competitor by one cent, never below its floor (a fraction of the
//     price guide's TREND, or of the article's first price while there is no guide), and moves up to
//     just under the next offer when it is the cheapest by more than it needs to be (PUT /stock);
//   - sends the orders that were paid (GET /orders/seller/paid, PUT /order/:id action=send).
// It prints one line per thing it noticed or did: "undercut", "sale", "guide moved", "sent".
//
// Environment: CARDBAZAAR_URL (default http://127.0.0.1:8080/ws/v2.0), APP_TOKEN, APP_SECRET,
// ACCESS_TOKEN, ACCESS_TOKEN_SECRET (a dedicated app's, e.g. from `cardbazaar app show --user …`).
// Options: --rounds N (default: until stopped), --interval SECONDS between rounds (default 5),
// --floor F (default 0.8: never under 80 % of the trend), --products ID,ID (only these products),
// --max-articles N (default 20: the offers of each article cost one request per round).
//
// docs/testing-your-client.md, "A living market", shows how to run it against a market.
import { createHmac, randomBytes } from 'node:crypto';

const env = process.env;
const base = (env.CARDBAZAAR_URL ?? 'http://127.0.0.1:8080/ws/v2.0').replace(/\/$/, '');
const creds = {
  appToken: env.APP_TOKEN ?? '',
  appSecret: env.APP_SECRET ?? '',
  accessToken: env.ACCESS_TOKEN ?? '',
  accessTokenSecret: env.ACCESS_TOKEN_SECRET ?? '',
};

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const rounds = Number(option('rounds', 'Infinity'));
const intervalMs = Number(option('interval', '5')) * 1000;
const floorFraction = Number(option('floor', '0.8'));
const onlyProducts = option('products', '').split(',').filter(Boolean).map(Number);
const maxArticles = Number(option('max-articles', '20'));

// --- OAuth 1.0 (RFC 5849), HMAC-SHA1: the base string is the method, the URL without its query,
// and the sorted oauth_* and query parameters; the key is appSecret&accessTokenSecret.
const enc = (s) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function authorization(method, url) {
  const u = new URL(url);
  const address = `${u.origin}${u.pathname}`;
  const oauth = {
    oauth_consumer_key: creds.appToken,
    oauth_token: creds.accessToken,
    oauth_nonce: randomBytes(12).toString('hex'),
    oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_version: '1.0',
  };
  const params = [...Object.entries(oauth), ...u.searchParams.entries()]
    .map(([k, v]) => [enc(k), enc(v)])
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const baseString = [method, enc(address), enc(params)].join('&');
  const key = `${enc(creds.appSecret)}&${enc(creds.accessTokenSecret)}`;
  const signature = createHmac('sha1', key).update(baseString).digest('base64');
  const fields = { realm: address, ...oauth, oauth_signature: signature };
  return `OAuth ${Object.entries(fields)
    .map(([k, v]) => `${k}="${enc(v)}"`)
    .join(', ')}`;
}

/** One signed request; JSON answers through the output.json segment, XML bodies for writes. */
async function call(method, path, body) {
  const url = `${base}/output.json${path}`;
  const headers = { authorization: authorization(method, url) };
  if (body !== undefined) headers['content-type'] = 'application/xml';
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, {
      method,
      headers: { ...headers, authorization: authorization(method, url) },
      body,
    });
    if (res.status === 429 && attempt < 3) {
      // The request limits: wait as told, then try once more.
      await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
      continue;
    }
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text === '' ? {} : JSON.parse(text);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cents = (eur) => Math.round(Number(eur) * 100);
const eur = (c) => (c / 100).toFixed(2);
const log = (what, text) => console.log(`${new Date().toISOString()} ${what.padEnd(11)} ${text}`);
const xml = (inner) => `<?xml version="1.0" encoding="UTF-8"?><request>${inner}</request>`;

const firstPrice = new Map(); // idArticle → the price it had when the bot first saw it
const lastTrend = new Map(); // idProduct → TREND last round
const lastCount = new Map(); // idProduct → copies in stock last round

async function round(me) {
  // With --products, each product's articles (GET /stock/products/:idProduct); otherwise the
  // first page of the stock.
  let stock = [];
  if (onlyProducts.length > 0) {
    for (const idProduct of onlyProducts)
      stock.push(...((await call('GET', `/stock/products/${idProduct}`)).article ?? []));
  } else {
    stock = (await call('GET', '/stock?start=0&maxResults=100')).article ?? [];
  }
  stock = stock.filter((a) => a.count > 0).slice(0, maxArticles);

  const copies = new Map();
  for (const a of stock) copies.set(a.idProduct, (copies.get(a.idProduct) ?? 0) + a.count);
  for (const [idProduct, before] of lastCount) {
    const now = copies.get(idProduct) ?? 0;
    if (now < before) log('sale', `product ${idProduct}: ${before - now} copies went (${now} left)`);
  }
  for (const [idProduct, n] of copies) lastCount.set(idProduct, n);
  for (const idProduct of lastCount.keys()) if (!copies.has(idProduct)) lastCount.set(idProduct, 0);

  const seen = new Set();
  for (const a of stock) {
    if (seen.has(a.idProduct)) continue; // one price per product: the first article decides
    seen.add(a.idProduct);
    const mine = cents(a.price);
    if (!firstPrice.has(a.idArticle)) firstPrice.set(a.idArticle, mine);
    const product = (await call('GET', `/products/${a.idProduct}`)).product ?? {};
    const trend = product.priceGuide?.TREND ? cents(product.priceGuide.TREND) : null;
    const before = lastTrend.get(a.idProduct);
    if (trend !== null && before && Math.abs(trend - before) > before * 0.2)
      log('guide moved', `product ${a.idProduct}: TREND ${eur(before)} → ${eur(trend)}`);
    if (trend !== null) lastTrend.set(a.idProduct, trend);
    const floor = Math.max(1, Math.round((trend ?? firstPrice.get(a.idArticle)) * floorFraction));

    const offers = (await call('GET', `/articles/${a.idProduct}?start=0&maxResults=20`)).article ?? [];
    const others = offers.filter((o) => o.seller?.idUser !== me).map((o) => cents(o.price));
    const cheapest = others.length ? Math.min(...others) : null;
    let target = mine;
    let why = '';
    if (cheapest !== null && cheapest <= mine) {
      target = Math.max(floor, cheapest - 1);
      why = `undercut: a competitor asks ${eur(cheapest)}`;
      if (target === floor && cheapest - 1 < floor) why += ` (holding the floor ${eur(floor)})`;
    } else if (cheapest !== null && cheapest - 1 > mine && mine < floor) {
      target = Math.min(cheapest - 1, Math.max(floor, mine));
      why = `under the floor ${eur(floor)}: up to it`;
    } else if (cheapest !== null && cheapest - 1 > mine + Math.max(2, Math.round(mine * 0.05))) {
      target = cheapest - 1;
      why = `room up to the next offer at ${eur(cheapest)}`;
    }
    if (target === mine) continue;
    log(
      why.startsWith('undercut') ? 'undercut' : 'reprice',
      `product ${a.idProduct}: ${eur(mine)} → ${eur(target)} — ${why}`,
    );
    await call(
      'PUT',
      '/stock',
      xml(
        `<article><idArticle>${a.idArticle}</idArticle><amount>${a.count}</amount><price>${eur(target)}</price></article>`,
      ),
    );
  }

  // Paid orders are the seller's to send.
  const paid = (await call('GET', '/orders/seller/paid?start=0&maxResults=100')).order ?? [];
  for (const o of paid) {
    log('sale', `order ${o.idOrder} was paid: sending it`);
    await call('PUT', `/order/${o.idOrder}`, xml('<action>send</action>'));
    log(
      'sent',
      `order ${o.idOrder} (${o.articleCount ?? '?'} articles, ${o.totalValue ?? '?'} EUR) to ${o.buyer?.username ?? 'the buyer'}`,
    );
  }
}

const account = (await call('GET', '/account')).account;
log('start', `${account.username} (idUser ${account.idUser}) at ${base}`);
for (let i = 0; i < rounds; i++) {
  try {
    await round(account.idUser);
  } catch (err) {
    log('error', err.message);
  }
  if (i + 1 < rounds) await sleep(intervalMs);
}
