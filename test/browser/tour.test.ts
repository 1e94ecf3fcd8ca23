import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { createApp } from '../../src/auth/apps.js';
import { createPasswordReset } from '../../src/auth/password-reset.js';
import { payOrder } from '../../src/domain/orders.js';
import { sendMessage } from '../../src/domain/messages.js';
import { createEndpoint } from '../../src/domain/webhooks.js';
import { createProduct } from '../fixtures.js';
import { describeUnless, type TestServer, xmlRequest } from '../helpers.js';
import {
  DESKTOP,
  NO_BROWSER,
  PHONE,
  person,
  sellerWithStock,
  signedFetch,
  signIn,
  useBrowser,
} from './harness.js';

/**
 * The tour: every page the website registers, visited at desktop and phone size by the person
 * it is for, one screenshot each (`test/browser/screenshots/tour-*`). The pages come from the
 * application's own route table, so a page added without a stop here fails the tour. On the phone,
 * no page scrolls sideways, and on every page that lists offers, articles or orders the first
 * price is on screen (not pushed off by the table or clipped by a scrolling box).
 */

/** GET routes that are no page a person reads, and why. */
const NOT_PAGES: Record<string, string> = {
  '/assets/*': 'the stylesheet and scripts',
  '/docs/assets/*': "Redoc's bundle for the API reference",
  '/docs/assets/redoc.standalone.js': "Redoc's bundle, as served (its CDN logo replaced)",
  '/docs/images/*': "the guides' pictures",
  '/img/*': 'card pictures (images, checked on the pages that show them)',
  '/stock/file.csv': 'a download (the stock file), not a page',
  '/healthz': "the operator's health check",
  '*': 'the not-found answer for any other path',
};
const isApi = (url: string) =>
  url.startsWith('/ws/') || url.startsWith('/_cardbazaar/') || url.startsWith('/productCatalog/');

type Who = 'seller' | 'buyer' | null;
interface Stop {
  /** The route as registered, e.g. `/orders/:idOrder`. */
  route: string;
  path: string;
  as: Who;
  /** The page lists offers, articles or orders: its first price must be on a phone's screen. */
  prices?: boolean;
  /** The offer lists' add-to-cart form must be on a phone's screen too. */
  cart?: boolean;
  /**
   * The first price (and add-to-cart button) must be on a phone's first screen, unscrolled: the
   * pages people shop from put their offers before (or beside) their facts.
   */
  firstScreen?: boolean;
  /** A heading the page shows once its script has drawn it; the picture is then of the window only. */
  drawn?: string;
}

/** Where the first `selector` is, once the window (not any box inside it) is scrolled to it. */
async function onScreen(page: Page, selector: string): Promise<string | undefined> {
  return page.evaluate((sel) => {
    // Runs in the page (the project's types have no DOM).
    const w = globalThis as any;
    const el = w.document.querySelector(sel);
    if (!el) return `no ${sel} on the page`;
    const top = el.getBoundingClientRect().top + w.scrollY;
    w.scrollTo(0, Math.max(0, top - 100));
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return `${sel} is not shown`;
    if (r.left < 0 || r.right > w.innerWidth)
      return `${sel} spans ${Math.round(r.left)}..${Math.round(r.right)} px, the window ${w.innerWidth}`;
    const hit = w.document.elementFromPoint(r.left + Math.min(5, r.width / 2), r.top + r.height / 2);
    if (!hit || !(el === hit || el.contains(hit))) return `${sel} is covered or clipped`;
    w.scrollTo(0, 0);
    return undefined;
  }, selector);
}

/** How far below the first screen's bottom the first `selector` ends, unscrolled (≤ 0: on it). */
async function belowFirstScreen(page: Page, selector: string): Promise<number | string> {
  return page.evaluate((sel) => {
    const w = globalThis as any;
    w.scrollTo(0, 0);
    const el = w.document.querySelector(sel);
    if (!el) return `no ${sel} on the page`;
    return Math.ceil(el.getBoundingClientRect().bottom - w.innerHeight);
  }, selector);
}

describeUnless(NO_BROWSER, 'a tour of every page at desktop and phone size', () => {
  const ctx = useBrowser('tour');

  it('visits every page the website registers, each readable on a phone', async () => {
    const { server, chrome } = ctx;
    const asTest = server as unknown as TestServer;

    // A small world: a seller with stock, a buyer with an order of theirs (paid), a card in the
    // cart, a thread, a wants list, a webhook, a logged request, a third-party app and a reset link.
    // The owl as a real product page shows it: a name in each language and a full price guide
    // (the phone's first screen must hold the first offer with all of that above it).
    const owl = await createProduct(asTest, {
      enName: 'Tour Owl',
      rarity: 'Rare',
      names: { 2: 'Hibou du tour', 3: 'Tour-Eule', 4: 'Búho del tour', 5: 'Gufo del tour' },
    });
    await server.services.database.db
      .insertInto('priceGuides')
      .values({
        idProduct: owl.idProduct,
        sell: 1450,
        low: 120,
        lowEx: 150,
        lowFoil: 2375,
        avg: 1399,
        trend: 1299,
        trendFoil: 3150,
        updatedAt: 0,
      })
      .execute();
    const fox = await createProduct(asTest, { enName: 'Tour Fox', idExpansion: owl.idExpansion });
    const seller = await sellerWithStock(server, 'tour-seller', [
      { idProduct: owl.idProduct, price: '1.50', condition: 'NM', count: 3 },
      { idProduct: fox.idProduct, price: '12.25', condition: 'EX', count: 2 },
    ]);
    const buyer = await person(server, 'tour-buyer', { balanceCents: 10_000 });
    const [idOwl, idFox] = seller.idArticles as [number, number];
    const add = (idArticle: number) =>
      signedFetch(
        server,
        buyer.cred,
        'PUT',
        '/shoppingcart',
        xmlRequest(
          `<action>add</action><article><idArticle>${idArticle}</idArticle><count>1</count></article>`,
        ),
      );
    assert.equal((await add(idOwl)).status, 200);
    const checkout = await signedFetch(server, buyer.cred, 'PUT', '/shoppingcart/checkout');
    const idOrder = checkout.json.order[0].idOrder as number;
    await payOrder(server.services, idOrder);
    assert.equal((await add(idOwl)).status, 200);
    assert.equal((await add(idFox)).status, 200);
    const checkout2 = await signedFetch(server, buyer.cred, 'PUT', '/shoppingcart/checkout');
    assert.equal(checkout2.status, 200, 'an unpaid order for the balance page');
    assert.equal((await add(idFox)).status, 200);
    await sendMessage(server.services, buyer.user.idUser, seller.user.idUser, 'Is the owl still there?');
    await sendMessage(server.services, seller.user.idUser, buyer.user.idUser, 'It is.');
    const list = await signedFetch(
      server,
      buyer.cred,
      'POST',
      '/wantslist',
      xmlRequest(`<wantslist><idGame>${owl.idGame}</idGame><name>Owls</name></wantslist>`),
    );
    const idWantslist = list.json.wantslist[0].idWantslist as number;
    const item = await signedFetch(
      server,
      buyer.cred,
      'PUT',
      `/wantslist/${idWantslist}`,
      xmlRequest(
        `<action>addItem</action><product><idProduct>${owl.idProduct}</idProduct><count>1</count><wishPrice>FROM</wishPrice></product>`,
      ),
    );
    assert.equal(item.status, 200, JSON.stringify(item.json));
    const idWant = item.json.wantslist.item[0].idWant as string;
    const endpoint = await createEndpoint(
      server.services,
      server.services.webhookSettings,
      seller.user.idUser,
      {
        idApp: seller.cred.idApp,
        url: 'https://hooks.example.org/cardbazaar',
      },
    );
    const thirdParty = await createApp(server.services, {
      idUser: seller.user.idUser,
      kind: 'thirdParty',
      name: 'Tour robot',
      callbackUrl: 'https://robot.example.org/callback',
    });
    const reset = await createPasswordReset(server.services, buyer.user.idUser);
    await new Promise((resolve) => setImmediate(resolve));
    await server.services.requestLog!.flush();
    const logged = await server.services.database.db
      .selectFrom('requestLog')
      .select('idRequest')
      .where('idUser', '=', seller.user.idUser)
      .orderBy('idRequest')
      .executeTakeFirstOrThrow();

    const stops: Stop[] = [
      { route: '/', path: '/', as: null },
      { route: '/register', path: '/register', as: null },
      { route: '/login', path: '/login', as: null },
      { route: '/password/forgot', path: '/password/forgot', as: null },
      { route: '/password/reset/:token', path: `/password/reset/${reset.token}`, as: null },
      { route: '/signature-debugger', path: '/signature-debugger', as: null },
      { route: '/market', path: '/market', as: null },
      { route: '/docs', path: '/docs', as: null },
      // The longest guide, with the widest tables, pictures and the settings table.
      { route: '/docs/:guide', path: '/docs/running-a-marketplace', as: null },
      {
        route: '/docs/api/reference',
        path: '/docs/api/reference',
        as: null,
        drawn: 'Signing a request (OAuth 1.0, HMAC-SHA1)',
      },
      { route: '/cards', path: '/cards?search=Tour', as: 'buyer' },
      { route: '/games/:idGame', path: `/games/${owl.idGame}`, as: 'buyer' },
      { route: '/expansions/:idExpansion', path: `/expansions/${owl.idExpansion}`, as: 'buyer' },
      {
        route: '/products/:idProduct',
        firstScreen: true,
        path: `/products/${owl.idProduct}`,
        as: 'buyer',
        prices: true,
        cart: true,
      },
      {
        route: '/users/:idUser',
        firstScreen: true,
        path: `/users/${seller.user.idUser}`,
        as: 'buyer',
        prices: true,
        cart: true,
      },
      { route: '/cart', path: '/cart', as: 'buyer', prices: true },
      { route: '/balance', path: '/balance', as: 'buyer', prices: true },
      { route: '/orders', path: '/orders?actor=buyer&state=paid', as: 'buyer', prices: true },
      { route: '/orders/:idOrder', path: `/orders/${idOrder}`, as: 'buyer', prices: true },
      { route: '/messages', path: '/messages', as: 'buyer' },
      { route: '/messages/:idOtherUser', path: `/messages/${seller.user.idUser}`, as: 'buyer' },
      { route: '/wants', path: '/wants', as: 'buyer' },
      { route: '/wants/:idWantslist', path: `/wants/${idWantslist}`, as: 'buyer' },
      {
        route: '/wants/:idWantslist/items/:idWant',
        path: `/wants/${idWantslist}/items/${idWant}`,
        as: 'buyer',
        prices: true,
      },
      { route: '/authorize/:appToken', path: `/authorize/${thirdParty.appToken}`, as: 'buyer' },
      { route: '/profile', path: '/profile', as: 'seller' },
      { route: '/profile/apps/new', path: '/profile/apps/new', as: 'seller' },
      {
        route: '/profile/apps/:idApp/webhooks/new',
        path: `/profile/apps/${seller.cred.idApp}/webhooks/new`,
        as: 'seller',
      },
      {
        route: '/profile/webhooks/:idEndpoint',
        path: `/profile/webhooks/${endpoint.idEndpoint}`,
        as: 'seller',
      },
      { route: '/requests', path: '/requests', as: 'seller' },
      { route: '/requests/:idRequest', path: `/requests/${logged.idRequest}`, as: 'seller' },
      { route: '/stock', path: '/stock', as: 'seller', prices: true },
      { route: '/stock/new', path: '/stock/new?search=Tour', as: 'seller' },
      { route: '/stock/file', path: '/stock/file', as: 'seller' },
      { route: '/stock/:idArticle', path: `/stock/${idFox}`, as: 'seller' },
      { route: '/orders', path: '/orders?actor=seller&state=paid', as: 'seller', prices: true },
      { route: '/orders/:idOrder', path: `/orders/${idOrder}`, as: 'seller', prices: true },
    ];

    // Every page the application registers has a stop (or is named above as no page), and every
    // stop is a registered page: a new page cannot be left out, a renamed one cannot linger.
    const pages = [
      ...new Set(
        server.routes
          .filter((r) => r.startsWith('GET '))
          .map((r) => r.slice(4))
          .filter((url) => !isApi(url) && !(url in NOT_PAGES)),
      ),
    ].sort();
    const visited = [...new Set(stops.map((s) => s.route))].sort();
    assert.deepEqual(
      pages.filter((p) => !visited.includes(p)),
      [],
      'pages the tour does not visit: add a stop for each (or name it in NOT_PAGES with the reason)',
    );
    assert.deepEqual(
      visited.filter((p) => !pages.includes(p)),
      [],
      'stops at routes the website does not register',
    );

    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const context = await chrome.browser.newContext({ viewport, locale: 'en-GB' });
      const page = await context.newPage();
      let who: Who = null;
      const problems: string[] = [];
      for (const stop of stops) {
        if (stop.as !== who) {
          await context.clearCookies();
          if (stop.as) await signIn(page, server, `tour-${stop.as}`, '/profile');
          who = stop.as;
        }
        const res = await page.goto(`${server.url}${stop.path}`);
        assert.equal(res?.status(), 200, `${stop.path} as ${stop.as ?? 'a visitor'}`);
        if (stop.drawn) await page.getByRole('heading', { name: stop.drawn }).waitFor({ timeout: 120_000 });
        await chrome.shot(page, `${size}-${stop.as ?? 'visitor'}`, { fullPage: !stop.drawn });
        if (size !== 'phone') continue;
        const overflow = await page.evaluate(() => {
          const root = (globalThis as any).document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        if (overflow > 0) problems.push(`${stop.path}: the page is ${overflow} px wider than the phone`);
        if (stop.prices) {
          const price = await onScreen(page, 'table tbody tr td.money');
          if (price) problems.push(`${stop.path}: ${price}`);
        }
        if (stop.cart) {
          const form = await onScreen(page, 'table.offers tbody tr form.add button');
          if (form) problems.push(`${stop.path}: ${form}`);
        }
        if (stop.firstScreen) {
          for (const [what, sel] of [
            ['price', 'table.offers tbody tr td.money'],
            ['add-to-cart button', 'table.offers tbody tr form.add button'],
          ] as const) {
            const below = await belowFirstScreen(page, sel);
            if (typeof below === 'string') problems.push(`${stop.path}: ${below}`);
            else if (below > 0)
              problems.push(`${stop.path}: the first ${what} ends ${below} px below the first screen`);
          }
        }
      }
      assert.deepEqual(problems, [], `on a ${size}`);
      await context.close();
    }
  });
});
