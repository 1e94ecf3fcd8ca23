import type { ClientCredentials } from '../../src/auth/client.js';
import type { ManualClock } from '../../src/clock.js';
import type { Services } from '../../src/services.js';

/**
 * The request behind each operation's example on the API reference (`/docs/api/reference`): who makes it, and what a world needs
 * before it (fixture steps, as `cardbazaar fixtures run` takes them, and API calls). Only the
 * requests are written here; every answer is what the server says (`generate.ts`), on the demo
 * data, the marketplace clock standing at `EXAMPLE_TIME`.
 */

/** A demo user's dedicated app (`demo-seller`), another of its app kinds, or no signature at all. */
export type Who =
  | string
  | { username: string; kind: 'widget' | 'thirdParty' }
  /** Signed by the app alone (its token and secret; `oauth_token` empty): `POST /access`. */
  | { appOnly: ClientCredentials }
  | ClientCredentials
  | 'anonymous';

/** Values a setup found or made, for the request's path and body (API answers, read loosely). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Values = Record<string, any>;

export interface Setup {
  services: Services;
  clock: ManualClock;
  /** Runs fixture steps (`{ steps: [...] }` of `fixtures run`) and answers their results by name. */
  fixture(steps: object[]): Promise<Values>;
  /** A signed API call in JSON whose answer must be 2xx; its parsed body (undefined for none). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(as: Who, method: string, path: string, body?: string): Promise<any>;
  /** The credentials of a demo user's app of a kind (dedicated by default). */
  credentials(
    username: string,
    kind?: 'dedicated' | 'widget' | 'thirdParty',
  ): Promise<ClientCredentials & { idApp: number }>;
  /** Sends the outbox and waits for export builds. */
  settle(): Promise<void>;
}

export interface ExampleRecipe {
  /** The route key: `GET /order/:idOrder`. */
  route: string;
  /** What the example shows, one line. */
  summary: string;
  as: Who | ((v: Values) => Who);
  setup?: (x: Setup) => Promise<Values>;
  /** Relative to `/ws/v2.0`, query included. */
  path: string | ((v: Values) => string);
  /** The content of `<request>`. */
  body?: string | ((v: Values) => string);
  /** Why the answer's body is not kept (it is this document). */
  omitBody?: string;
}

const DAY = 86_400_000;

/**
 * A small shop of the seller's own (three articles of Magic singles from the demo catalog, a
 * dedicated app): answers that list a whole stock stay short enough to read.
 */
async function shop(x: Setup): Promise<Values> {
  const found = await x.call('demo-seller', 'GET', '/stock?start=0&maxResults=3');
  const products = (found.article as Array<{ idProduct: number }>).map((a) => a.idProduct);
  const made = await x.fixture([
    {
      user: 'demo-shop',
      country: 'D',
      accountType: 'professional',
      firstName: 'Sam',
      lastName: 'Shop',
      company: 'Demo Cards GmbH',
      balance: 20,
    },
    { app: 'shopApp', owner: 'demo-shop', kind: 'dedicated', appName: 'shop tools' },
    {
      articles: 'stock',
      user: 'demo-shop',
      items: products.map((idProduct, i) => ({
        idProduct,
        count: 4 - i,
        price: [1.5, 0.25, 12][i],
        condition: ['NM', 'EX', 'GD'][i],
        idLanguage: 1,
        comments: i === 0 ? 'Straight from the booster' : '',
      })),
    },
  ]);
  const first = await x.call(made.shopApp, 'GET', `/stock/article/${made.stock.idArticle}`);
  const p = await x.call(made.shopApp, 'GET', `/products/${first.article.idProduct}`);
  return {
    shop: made.shopApp,
    idShop: made['demo-shop'].idUser,
    articles: made.stock.articles,
    idArticle: made.stock.idArticle,
    idProduct: first.article.idProduct,
    name: p.product.enName,
  };
}

/** The shop, and the demo buyer with its first article in the cart. */
async function cart(x: Setup): Promise<Values> {
  const v = await shop(x);
  const added = await x.call(
    'demo-buyer',
    'PUT',
    '/shoppingcart',
    `<action>add</action><article><idArticle>${v.idArticle}</idArticle><count>2</count></article>`,
  );
  return { ...v, idReservation: added.shoppingCart[0].idReservation };
}

/** The shop, and an order of the demo buyer in this state (the `order` fixture step). */
const order = (state: string) => async (x: Setup) => {
  const v = await shop(x);
  const made = await x.fixture([
    {
      order: 'o',
      buyer: 'demo-buyer',
      items: [{ idArticle: v.idArticle, count: 1 }],
      state,
      ...(state === 'sent' ? { trackingNumber: 'RR123456789DE' } : {}),
    },
  ]);
  return { ...v, idOrder: made.o.idOrder };
};

/** A finished export of the shop's stock. */
async function stockExport(x: Setup): Promise<Values> {
  const v = await shop(x);
  await x.call(v.shop, 'POST', '/exports/stock?idGame=1');
  await x.settle();
  const [done] = (await x.call(v.shop, 'GET', '/exports/stock')).stockExports;
  return { ...v, idRequest: done.idRequest, url: done.url };
}

/** A user who has registered and not yet activated selling, with a dedicated app. */
async function newcomer(x: Setup): Promise<Values> {
  const made = await x.fixture([
    { user: 'newcomer', country: 'D', sellerActivation: 0, firstName: 'Nora', lastName: 'Newcomer' },
    { app: 'tools', owner: 'newcomer', kind: 'dedicated', appName: 'newcomer tools' },
  ]);
  return { tools: made.tools, idUser: made.newcomer.idUser };
}

const BANK =
  '<bankAccountOwner>Nora Newcomer</bankAccountOwner><iban>DE89 3704 0044 0532 0130 00</iban>' +
  '<bic>COBADEFFXXX</bic><bankName>Commerzbank</bankName><phoneNumber>+49 30 1234567</phoneNumber>';

async function demoIds(x: Setup): Promise<Values> {
  const seller = await x.call('demo-seller', 'GET', '/account');
  const buyer = await x.call('demo-buyer', 'GET', '/account');
  return { idSeller: seller.account.idUser, idBuyer: buyer.account.idUser };
}

/** A message of the demo buyer to the demo seller (the `message` fixture step). */
async function message(x: Setup): Promise<Values> {
  const made = await x.fixture([
    { message: 'm', from: 'demo-buyer', to: 'demo-seller', text: 'Do you ship to France?' },
  ]);
  return { ...(await demoIds(x)), idMessage: made.m.idMessage };
}

/** A wants list of the demo buyer with one item. */
async function wantslist(x: Setup): Promise<Values> {
  const v = await shop(x);
  const made = await x.fixture([{ wantslist: 'Modern', user: 'demo-buyer', idGame: 1 }]);
  const idWantslist = made.Modern.idWantslist;
  await x.call(
    'demo-buyer',
    'PUT',
    `/wantslist/${idWantslist}`,
    `<action>addItem</action><product><idProduct>${v.idProduct}</idProduct><count>2</count><wishPrice>1.20</wishPrice><idLanguage>1</idLanguage><minCondition>EX</minCondition><mailAlert>true</mailAlert></product>`,
  );
  return { ...v, idWantslist };
}

/** A product of the demo catalog with a metaproduct, and the first word of its name. */
async function product(x: Setup): Promise<Values> {
  const found = await x.call('demo-seller', 'GET', '/stock?start=0&maxResults=1');
  const a = found.article[0];
  const p = await x.call('demo-seller', 'GET', `/products/${a.idProduct}`);
  return {
    idProduct: a.idProduct,
    idMetaproduct: p.product.idMetaproduct,
    idExpansion: p.product.expansion?.idExpansion ?? p.product.idExpansion,
    idGame: p.product.idGame,
    word: String(p.product.enName).split(' ')[0],
  };
}

export const EXAMPLES: ExampleRecipe[] = [
  // Account ---------------------------------------------------------------------------------
  { route: 'GET /account', summary: "The demo seller's account", as: 'demo-seller', path: '/account' },
  {
    route: 'PUT /account/vacation',
    summary: 'The demo seller goes on vacation',
    as: 'demo-seller',
    path: '/account/vacation?onVacation=true',
  },
  {
    route: 'PUT /account/language',
    summary: 'German as the display language',
    as: 'demo-seller',
    path: '/account/language?idDisplayLanguage=3',
  },
  {
    route: 'POST /account/coupon',
    summary: 'A coupon of 5.00 € redeemed, and an unknown code',
    as: 'demo-buyer',
    setup: (x) => x.fixture([{ coupon: 'welcome', value: 5, code: 'WELCOME5' }]),
    path: '/account/coupon',
    body: '<couponCode>WELCOME5</couponCode><couponCode>NOSUCHCODE</couponCode>',
  },
  {
    route: 'POST /account/selleractivation',
    summary: "A newcomer's bank details: the two test transfers are on their way",
    as: (v) => v.tools,
    setup: newcomer,
    path: '/account/selleractivation',
    body: BANK,
  },
  {
    route: 'PUT /account/selleractivation',
    summary: 'The two amounts that arrived: selling is activated',
    as: (v) => v.tools,
    setup: async (x) => {
      const v = await newcomer(x);
      await x.call(v.tools, 'POST', '/account/selleractivation', BANK);
      x.clock.advance(DAY);
      const { sellerActivationStatus } = await import('../../src/domain/seller-activation.js');
      const status = await sellerActivationStatus(x.services, v.idUser);
      const [a, b] = status.transfers!.map((t: { amountCents?: number; cents?: number } | number) =>
        typeof t === 'number' ? t : (t.amountCents ?? t.cents ?? 0),
      );
      return { ...v, amounts: [a, b].map((c) => (Number(c) / 100).toFixed(2)) };
    },
    path: '/account/selleractivation',
    body: (v) => `<amount1>${v.amounts[0]}</amount1><amount2>${v.amounts[1]}</amount2>`,
  },
  {
    route: 'POST /account/logout',
    summary: 'The demo third-party app gives up its access token for the demo buyer',
    as: { username: 'demo-buyer', kind: 'thirdParty' },
    path: '/account/logout',
  },
  {
    route: 'POST /account/logindata',
    summary: 'The demo third-party app asks for a password reset link for a user who forgot it',
    as: (v) => ({ appOnly: v.app }),
    setup: async (x) => ({ app: await x.credentials('demo-buyer', 'thirdParty') }),
    path: '/account/logindata?type=password',
    body: '<username>demo-buyer</username>',
  },
  // Authorization ---------------------------------------------------------------------------
  {
    route: 'GET /authenticate/:appToken',
    summary: "A user's browser sent to the consent page of the demo third-party app",
    as: 'anonymous',
    setup: async (x) => ({ app: await x.credentials('demo-buyer', 'thirdParty') }),
    path: (v) => `/authenticate/${v.app.appToken}`,
  },
  {
    route: 'GET /authenticate/:appToken/:lang',
    summary: 'The same, the consent page in German',
    as: 'anonymous',
    setup: async (x) => ({ app: await x.credentials('demo-buyer', 'thirdParty') }),
    path: (v) => `/authenticate/${v.app.appToken}/de`,
  },
  {
    route: 'POST /access',
    summary: 'The request token the demo buyer approved becomes an access token',
    as: (v) => ({ appOnly: v.app }),
    setup: async (x) => {
      const app = await x.credentials('demo-buyer', 'thirdParty');
      const { issueRequestToken } = await import('../../src/auth/request-tokens.js');
      const ids = await demoIds(x);
      const idApp = app.idApp;
      const { requestToken } = await issueRequestToken(x.services, { idApp, idUser: ids.idBuyer });
      return { app, requestToken };
    },
    path: '/access',
    body: (v) => `<app_key>${v.app.appToken}</app_key><request_token>${v.requestToken}</request_token>`,
  },
  // Messages --------------------------------------------------------------------------------
  {
    route: 'GET /account/messages',
    summary: "The demo buyer's threads",
    as: 'demo-buyer',
    path: '/account/messages',
  },
  {
    route: 'GET /account/messages/find',
    summary: "The demo seller's unread messages",
    as: 'demo-seller',
    setup: message,
    path: '/account/messages/find?unread=true',
  },
  {
    route: 'GET /account/messages/:idOtherUser',
    summary: 'The thread of the demo buyer with the demo seller',
    as: 'demo-buyer',
    setup: demoIds,
    path: (v) => `/account/messages/${v.idSeller}`,
  },
  {
    route: 'POST /account/messages/:idOtherUser',
    summary: 'The demo buyer writes to the demo seller',
    as: 'demo-buyer',
    setup: demoIds,
    path: (v) => `/account/messages/${v.idSeller}`,
    body: '<message>Is the foil copy still available?</message>',
  },
  {
    route: 'DELETE /account/messages/:idOtherUser',
    summary: 'The demo buyer deletes the thread on their side',
    as: 'demo-buyer',
    setup: demoIds,
    path: (v) => `/account/messages/${v.idSeller}`,
  },
  {
    route: 'GET /account/messages/:idOtherUser/:idMessage',
    summary: 'One message the demo seller received',
    as: 'demo-seller',
    setup: message,
    path: (v) => `/account/messages/${v.idBuyer}/${v.idMessage}`,
  },
  {
    route: 'DELETE /account/messages/:idOtherUser/:idMessage',
    summary: 'The demo seller deletes one message',
    as: 'demo-seller',
    setup: message,
    path: (v) => `/account/messages/${v.idBuyer}/${v.idMessage}`,
  },
  // Wants lists -----------------------------------------------------------------------------
  {
    route: 'GET /wantslist',
    summary: "The demo buyer's wants lists",
    as: 'demo-buyer',
    setup: wantslist,
    path: '/wantslist',
  },
  {
    route: 'POST /wantslist',
    summary: 'A new wants list for Magic',
    as: 'demo-buyer',
    path: '/wantslist',
    body: '<wantslist><idGame>1</idGame><name>Modern deck</name></wantslist>',
  },
  {
    route: 'GET /wantslist/:idWantslist',
    summary: 'A wants list with its item',
    as: 'demo-buyer',
    setup: wantslist,
    path: (v) => `/wantslist/${v.idWantslist}`,
  },
  {
    route: 'PUT /wantslist/:idWantslist',
    summary: 'A product added to a wants list',
    as: 'demo-buyer',
    setup: async (x) => {
      const v = await shop(x);
      const made = await x.fixture([{ wantslist: 'Legacy', user: 'demo-buyer', idGame: 1 }]);
      return { ...v, idWantslist: made.Legacy.idWantslist };
    },
    path: (v) => `/wantslist/${v.idWantslist}`,
    body: (v) =>
      `<action>addItem</action><product><idProduct>${v.idProduct}</idProduct><count>2</count><wishPrice>1.20</wishPrice><idLanguage>1</idLanguage><minCondition>EX</minCondition><mailAlert>true</mailAlert></product>`,
  },
  {
    route: 'DELETE /wantslist/:idWantslist',
    summary: 'A wants list deleted',
    as: 'demo-buyer',
    setup: wantslist,
    path: (v) => `/wantslist/${v.idWantslist}`,
  },
  // Stock -----------------------------------------------------------------------------------
  { route: 'GET /stock', summary: "A shop's whole stock", as: (v) => v.shop, setup: shop, path: '/stock' },
  {
    route: 'POST /stock',
    summary: 'Two more copies put on sale',
    as: (v) => v.shop,
    setup: shop,
    path: '/stock',
    body: (v) =>
      `<article><idProduct>${v.idProduct}</idProduct><idLanguage>2</idLanguage><comments>French printing</comments><count>2</count><price>1.80</price><condition>NM</condition><isFoil>true</isFoil><isSigned>false</isSigned><isPlayset>false</isPlayset></article>`,
  },
  {
    route: 'PUT /stock',
    summary: "An article's price and comment changed",
    as: (v) => v.shop,
    setup: shop,
    path: '/stock',
    body: (v) =>
      `<article><idArticle>${v.idArticle}</idArticle><count>4</count><price>1.40</price><comments>Price lowered</comments></article>`,
  },
  {
    route: 'DELETE /stock',
    summary: 'One copy taken off sale',
    as: (v) => v.shop,
    setup: shop,
    path: '/stock',
    body: (v) => `<article><idArticle>${v.idArticle}</idArticle><count>1</count></article>`,
  },
  {
    route: 'GET /stock/:start',
    summary: 'The first page of a stock (pages of 100)',
    as: (v) => v.shop,
    setup: shop,
    path: '/stock/1',
  },
  {
    route: 'PUT /stock/increase',
    summary: 'One more copy of an article',
    as: (v) => v.shop,
    setup: shop,
    path: '/stock/increase',
    body: (v) => `<article><idArticle>${v.idArticle}</idArticle><count>1</count></article>`,
  },
  {
    route: 'PUT /stock/decrease',
    summary: 'One copy fewer',
    as: (v) => v.shop,
    setup: shop,
    path: '/stock/decrease',
    body: (v) => `<article><idArticle>${v.idArticle}</idArticle><count>1</count></article>`,
  },
  {
    route: 'GET /stock/article/:idArticle',
    summary: 'One article of the stock',
    as: (v) => v.shop,
    setup: shop,
    path: (v) => `/stock/article/${v.idArticle}`,
  },
  {
    route: 'GET /stock/articles/:name/:idGame',
    summary: 'The stock’s articles of a card found by name',
    as: (v) => v.shop,
    setup: shop,
    path: (v) => `/stock/articles/${encodeURIComponent(v.name)}/1`,
  },
  {
    route: 'GET /stock/products/:idProduct',
    summary: 'The stock’s articles of one product',
    as: (v) => v.shop,
    setup: shop,
    path: (v) => `/stock/products/${v.idProduct}`,
  },
  {
    route: 'GET /stock/shoppingcart-articles',
    summary: 'Articles of the stock that sit in carts',
    as: (v) => v.shop,
    setup: cart,
    path: '/stock/shoppingcart-articles',
  },
  {
    route: 'GET /stock/file',
    summary: 'The stock file of Magic singles (gzip, base64)',
    as: (v) => v.shop,
    setup: shop,
    path: '/stock/file?idGame=1&isSealed=false',
  },
  // Exports ---------------------------------------------------------------------------------
  {
    route: 'POST /exports/stock',
    summary: "An export of the shop's Magic stock, queued",
    as: (v) => v.shop,
    setup: shop,
    path: '/exports/stock?idGame=1',
  },
  {
    route: 'GET /exports/stock',
    summary: "The shop's stock exports",
    as: (v) => v.shop,
    setup: stockExport,
    path: '/exports/stock',
  },
  {
    route: 'GET /exports/stock/:idExport',
    summary: 'One finished stock export with its link',
    as: (v) => v.shop,
    setup: stockExport,
    path: (v) => `/exports/stock/${v.idRequest}`,
  },
  {
    route: 'POST /exports/userOffers/:idUser',
    summary: "An export of the shop's offers, asked for by the demo buyer",
    as: 'demo-buyer',
    setup: shop,
    path: (v) => `/exports/userOffers/${v.idShop}`,
  },
  {
    route: 'GET /exports/userOffers/:idUser',
    summary: "The newest export of the shop's offers",
    as: 'demo-buyer',
    setup: async (x) => {
      const v = await shop(x);
      await x.call('demo-buyer', 'POST', `/exports/userOffers/${v.idShop}`);
      await x.settle();
      return v;
    },
    path: (v) => `/exports/userOffers/${v.idShop}`,
  },
  {
    route: 'GET /exports/userOffers',
    summary: "The demo buyer's offer exports",
    as: 'demo-buyer',
    setup: async (x) => {
      const v = await shop(x);
      await x.call('demo-buyer', 'POST', `/exports/userOffers/${v.idShop}`);
      await x.settle();
      return v;
    },
    path: '/exports/userOffers',
  },
  {
    route: 'GET /exports/files/:idRequest/:token',
    summary: "The file behind a finished export's link (no signature)",
    as: 'anonymous',
    setup: stockExport,
    path: (v) => new URL(v.url).pathname.replace(/^\/ws\/v2\.0/, ''),
  },
  // Shopping cart ---------------------------------------------------------------------------
  {
    route: 'GET /shoppingcart',
    summary: "The demo buyer's cart",
    as: 'demo-buyer',
    setup: cart,
    path: '/shoppingcart',
  },
  {
    route: 'PUT /shoppingcart',
    summary: 'Two copies of an article added to the cart',
    as: 'demo-buyer',
    setup: shop,
    path: '/shoppingcart',
    body: (v) =>
      `<action>add</action><article><idArticle>${v.idArticle}</idArticle><count>2</count></article>`,
  },
  {
    route: 'DELETE /shoppingcart',
    summary: 'The cart emptied',
    as: 'demo-buyer',
    setup: cart,
    path: '/shoppingcart',
  },
  {
    route: 'PUT /shoppingcart/checkout',
    summary: 'The cart bought: one order per seller',
    as: 'demo-buyer',
    setup: cart,
    path: '/shoppingcart/checkout',
  },
  {
    route: 'PUT /shoppingcart/shippingaddress',
    summary: 'The cart shipped to another address',
    as: 'demo-buyer',
    setup: cart,
    path: '/shoppingcart/shippingaddress',
    body: '<name>Bea Buyer</name><extra>c/o Game Store</extra><street>Rue de Rivoli 12</street><zip>75001</zip><city>Paris</city><country>FR</country>',
  },
  {
    route: 'GET /shoppingcart/shippingmethod/:idReservation',
    summary: 'The shipping methods a reservation may choose',
    as: 'demo-buyer',
    setup: cart,
    path: (v) => `/shoppingcart/shippingmethod/${v.idReservation}`,
  },
  {
    route: 'PUT /shoppingcart/shippingmethod/:idReservation',
    summary: 'Another shipping method for a reservation',
    as: 'demo-buyer',
    setup: async (x) => {
      const v = await cart(x);
      const methods = await x.call('demo-buyer', 'GET', `/shoppingcart/shippingmethod/${v.idReservation}`);
      const list = methods.availableMethod as Array<{ idShippingMethod: number }>;
      return { ...v, idShippingMethod: list[list.length - 1]!.idShippingMethod };
    },
    path: (v) => `/shoppingcart/shippingmethod/${v.idReservation}`,
    body: (v) => `<idShippingMethod>${v.idShippingMethod}</idShippingMethod>`,
  },
  // Orders ----------------------------------------------------------------------------------
  {
    route: 'GET /orders/:actor/:state',
    summary: "The demo buyer's paid orders",
    as: 'demo-buyer',
    setup: order('paid'),
    path: '/orders/buyer/paid',
  },
  {
    route: 'GET /orders/:actor/:state/:start',
    summary: 'The first page (of 100) of the shop’s paid orders',
    as: (v) => v.shop,
    setup: order('paid'),
    path: '/orders/seller/paid/1',
  },
  {
    route: 'GET /order/:idOrder',
    summary: 'One order, as its buyer sees it',
    as: 'demo-buyer',
    setup: order('paid'),
    path: (v) => `/order/${v.idOrder}`,
  },
  {
    route: 'PUT /order/:idOrder',
    summary: 'The seller sends a paid order, with a tracking number',
    as: (v) => v.shop,
    setup: order('paid'),
    path: (v) => `/order/${v.idOrder}`,
    body: '<action>send</action><trackingNumber>RR123456789DE</trackingNumber>',
  },
  {
    route: 'PUT /order/:idOrder/tracking',
    summary: "A sent order's tracking number corrected",
    as: (v) => v.shop,
    setup: order('sent'),
    path: (v) => `/order/${v.idOrder}/tracking`,
    body: '<trackingNumber>RR987654321DE</trackingNumber>',
  },
  {
    route: 'POST /order/:idOrder/evaluation',
    summary: 'The buyer evaluates a received order',
    as: 'demo-buyer',
    setup: order('received'),
    path: (v) => `/order/${v.idOrder}/evaluation`,
    body: '<evaluationGrade>1</evaluationGrade><itemDescription>1</itemDescription><packaging>2</packaging><speed>1</speed><comment>Well packed, quick.</comment>',
  },
  // Catalog, search, offers, users (a widget app may read these) ----------------------------------------
  {
    route: 'GET /games',
    summary: 'The games',
    as: { username: 'demo-seller', kind: 'widget' },
    path: '/games',
  },
  {
    route: 'GET /games/:idGame/expansions',
    summary: 'The expansions of a game',
    as: { username: 'demo-seller', kind: 'widget' },
    setup: product,
    path: (v) => `/games/${v.idGame}/expansions`,
  },
  {
    route: 'GET /expansions/:idExpansion/singles',
    summary: 'The single cards of a small promo expansion',
    as: { username: 'demo-seller', kind: 'widget' },
    setup: async (x) => {
      // The demo expansions hold 80 to 300 cards each: a promo set of two keeps the example short.
      const { insertExpansion } = await import('../../src/store/catalog.js');
      const idExpansion = 1900;
      await insertExpansion(
        x.services.database.db,
        {
          idExpansion,
          idGame: 1,
          enName: 'Demo Promos',
          abbreviation: 'PRM',
          icon: 1,
          releaseDate: Date.parse('2026-02-01T00:00:00Z'),
          isReleased: 1,
        },
        { 3: 'Demo-Promos' },
      );
      await x.fixture([
        { product: 'p1', idProduct: 190001, name: 'Promo Lantern', idExpansion },
        { product: 'p2', idProduct: 190002, name: 'Promo Warden', idExpansion },
      ]);
      return { idExpansion };
    },
    path: (v) => `/expansions/${v.idExpansion}/singles`,
  },
  {
    route: 'GET /products/find',
    summary: 'A search by name, the first two products',
    as: { username: 'demo-seller', kind: 'widget' },
    setup: product,
    path: (v) => `/products/find?search=${encodeURIComponent(v.word)}&idGame=1&start=0&maxResults=2`,
  },
  {
    route: 'GET /products/:idProduct',
    summary: 'One product with its price guide',
    as: { username: 'demo-seller', kind: 'widget' },
    setup: product,
    path: (v) => `/products/${v.idProduct}`,
  },
  {
    route: 'GET /metaproducts/find',
    summary: 'A search of metaproducts by name, the first two',
    as: { username: 'demo-seller', kind: 'widget' },
    setup: product,
    path: (v) => `/metaproducts/find?search=${encodeURIComponent(v.word)}&start=0&maxResults=2`,
  },
  {
    route: 'GET /metaproducts/:idMetaproduct',
    summary: 'One metaproduct with its printings',
    as: { username: 'demo-seller', kind: 'widget' },
    setup: product,
    path: (v) => `/metaproducts/${v.idMetaproduct}`,
  },
  {
    route: 'GET /articles/:idProduct',
    summary: 'The two cheapest offers of a product',
    as: 'demo-buyer',
    setup: product,
    path: (v) => `/articles/${v.idProduct}?start=0&maxResults=2`,
  },
  {
    route: 'GET /users/find',
    summary: 'Users found by part of their name',
    as: 'demo-buyer',
    path: '/users/find?search=demo',
  },
  {
    route: 'GET /users/:idUser',
    summary: 'A seller by username',
    as: 'demo-buyer',
    path: '/users/demo-seller',
  },
  {
    route: 'GET /users/:idUser/articles',
    summary: "A seller's two cheapest offers of Magic",
    as: 'demo-buyer',
    path: '/users/demo-seller/articles?idGame=1&start=0&maxResults=2',
  },
  {
    route: 'GET /productlist',
    summary: 'The product list of a game (gzip, base64)',
    as: 'demo-seller',
    setup: smallestGame,
    path: (v) => `/productlist?idGame=${v.idGame}`,
  },
  {
    route: 'GET /priceguide',
    summary: 'The price guide of a game (gzip, base64)',
    as: 'demo-powerseller',
    setup: smallestGame,
    path: (v) => `/priceguide?idGame=${v.idGame}`,
  },
  // Extensions ------------------------------------------------------------------------------
  {
    route: 'GET /events',
    summary: 'The events of a new order, as its seller reads them',
    as: (v) => v.shop,
    setup: async (x) => {
      const v = await order('paid')(x);
      await x.settle();
      return v;
    },
    path: '/events?maxResults=5',
  },
  {
    route: 'GET /openapi.json',
    summary: 'This document',
    as: 'anonymous',
    path: '/openapi.json',
    omitBody: 'the answer is this document',
  },
];

/** The game with the fewest products (its files are the shortest to show). */
async function smallestGame(x: Setup): Promise<Values> {
  const games = (await x.call('demo-seller', 'GET', '/games')).game as Array<{ idGame: number }>;
  let best = { idGame: games[0]!.idGame, n: Infinity };
  for (const g of games) {
    const r = await x.services.database.db
      .selectFrom('products')
      .where('idGame', '=', g.idGame)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const n = Number(r.n);
    if (n > 0 && n < best.n) best = { idGame: g.idGame, n };
  }
  return { idGame: best.idGame };
}
