/**
 * The live API's operations as the reference lists them (`../shared/reference/mkm-api-2.0.md` §1,
 * every table), each with the cardbazaar route(s) that implement it and every known deviation. The
 * one hand-kept part of `docs/parity.md`: whether each route's answers are tested, in which format,
 * comes from the test run (`scripts/parity/generate.ts`).
 *
 * A route the server registers must appear here, in `route` of an operation or as an extension;
 * `test/parity.test.ts` fails otherwise and says where to add it.
 */
export interface Operation {
  /** As the reference writes it, relative to `/ws/v2.0`. */
  method: string;
  path: string;
  /** The reference's section. */
  section: string;
  /** The app kinds the reference's table marks (Ded, Wid, 3rd). */
  kinds: string;
  /** The reference's confidence tags for the expected shape ([DOC], [FIX …], [CLI], [1CLI], [3P]). */
  source: string;
  /** `METHOD /path` keys of the routes that implement it (as `Router.routeKeys()` spells them); empty: not implemented. */
  routes: string[];
  /** Deviations from the reference, choices where sources disagree or are silent, and why. */
  notes: string;
}

export interface Extension {
  routes: string[];
  what: string;
  notes: string;
}

const A = '§1.2 Account';
const M = '§1.3 Marketplace';
const O = '§1.4 Orders';
const C = '§1.5 Shopping cart';
const S = '§1.6 Stock';
const W = '§1.7 Wants lists';
const AUTH = '§1.8 Authentication';

export const OPERATIONS: Operation[] = [
  {
    method: 'GET',
    path: '/account',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[FIX decksy]',
    routes: ['GET /account'],
    notes:
      'Every §2.1 field from real data. `sellerActivation` 2 shows from the next Berlin midnight after `POST /account/selleractivation`.',
  },
  {
    method: 'PUT',
    path: '/account/vacation',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[DOC][FIX pymkm]',
    routes: ['PUT /account/vacation'],
    notes: 'Answers the Account plus the `message` string, as pymkm recorded.',
  },
  {
    method: 'PUT',
    path: '/account/language',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[DOC-link][CLI]',
    routes: ['PUT /account/language'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/account/messages',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /account/messages'],
    notes: "A thread's `partner` is the public User form (no address or email of whoever one writes to).",
  },
  {
    method: 'GET',
    path: '/account/messages/:idOtherUser',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /account/messages/:idOtherUser'],
    notes: 'Paginated (a thread can grow without end): 100 messages a page, 206 with `Content-Range`.',
  },
  {
    method: 'GET',
    path: '/account/messages/:idOtherUser/:idMessage',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /account/messages/:idOtherUser/:idMessage'],
    notes: '',
  },
  {
    method: 'POST',
    path: '/account/messages/:idOtherUser',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['POST /account/messages/:idOtherUser'],
    notes: '',
  },
  {
    method: 'DELETE',
    path: '/account/messages/:idOtherUser',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[CLI][3P pisko]',
    routes: ['DELETE /account/messages/:idOtherUser'],
    notes:
      "Deletes the thread from the caller's side only (the other user keeps theirs); one SDK reports the live API answered 200 without deleting: here it deletes.",
  },
  {
    method: 'DELETE',
    path: '/account/messages/:idOtherUser/:idMessage',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['DELETE /account/messages/:idOtherUser/:idMessage'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/account/messages/find',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[DOC][3P pisko 2026]',
    routes: ['GET /account/messages/find'],
    notes:
      'Works (one SDK reports the live endpoint now answers 400 "currently unavailable"); received messages only, oldest first, paginated; `unread=true` marks what it returns read.',
  },
  {
    method: 'POST',
    path: '/account/coupon',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['POST /account/coupon'],
    notes: "mkm-sdk's `/account/messages/coupon` is taken to be its mistake.",
  },
  {
    method: 'POST',
    path: '/account/selleractivation',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[1CLI]',
    routes: ['POST /account/selleractivation'],
    notes:
      'Deprecated on the live API; element names from one Go client. Records the bank details (0 → 1); the transfers arrive the next marketplace day (2).',
  },
  {
    method: 'PUT',
    path: '/account/selleractivation',
    section: A,
    kinds: 'Ded, 3rd',
    source: '[1CLI]',
    routes: ['PUT /account/selleractivation'],
    notes:
      'The two transfer amounts activate (3, `maySell`); selling before that is 403 `seller_not_activated` (a choice: the request is well formed but not allowed yet).',
  },
  {
    method: 'POST',
    path: '/account/logindata',
    section: A,
    kinds: '3rd',
    source: '[DOC]',
    routes: ['POST /account/logindata'],
    notes:
      'Mails a password reset link (`type=password`, `<username>`) or the username (`type=username`, `<email>`) through SMTP_URL; answers `{"logindata": "successful", "message"}` whether or not an account matched (the live answer is not documented).',
  },
  {
    method: 'POST',
    path: '/account/logout',
    section: A,
    kinds: '3rd',
    source: '[DOC][1CLI]',
    routes: ['POST /account/logout'],
    notes:
      'Answers `{"logout": "successful"}` (as Cardmonitor expects), empties the cart, revokes the token.',
  },
  {
    method: 'POST',
    path: '(register new user)',
    section: A,
    kinds: '3rd',
    source: '[3P table]',
    routes: [],
    notes: 'Not implemented: the path was never confirmed.',
  },
  {
    method: 'GET/POST',
    path: '(activate new user)',
    section: A,
    kinds: '3rd',
    source: '[3P table]',
    routes: [],
    notes: 'Not implemented: the path was never confirmed.',
  },
  {
    method: 'GET',
    path: '/games',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[FIX pisko mock][CLI]',
    routes: ['GET /games'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/games/:idGame/expansions',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[FIX Cardmonitor]',
    routes: ['GET /games/:idGame/expansions'],
    notes: 'Newest first; a whole collection (hundreds at most), not paginated.',
  },
  {
    method: 'GET',
    path: '/expansions/:idExpansion/singles',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[CLI]',
    routes: ['GET /expansions/:idExpansion/singles'],
    notes: 'By collector number; no priceGuide, as the reference says.',
  },
  {
    method: 'GET',
    path: '/products/:idProduct',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[FIX]',
    routes: ['GET /products/:idProduct'],
    notes:
      'Ids are numbers (`idGame`, `localization[].idLanguage`), where some recordings send strings: typed clients read numbers.',
  },
  {
    method: 'GET',
    path: '/products/find',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[FIX pymkm][DOC news]',
    routes: ['GET /products/find'],
    notes:
      'Every word of the search must start a word of the name; 307 to the first page when unpaginated and over 100.',
  },
  {
    method: 'GET',
    path: '/productlist',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[CLI]',
    routes: ['GET /productlist'],
    notes:
      'Still served (the live one was announced for removal by Dec 2024); see also the download files below.',
  },
  {
    method: 'GET',
    path: '/priceguide',
    section: M,
    kinds: 'Wid, 3rd (Ded of pro/powerseller)',
    source: '[CLI][3P]',
    routes: ['GET /priceguide'],
    notes:
      "403 `price_guide_not_allowed` for dedicated apps of private sellers. The guide is the marketplace's own.",
  },
  {
    method: 'GET',
    path: '/articles/:idProduct',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[CLI ×4][3P]',
    routes: ['GET /articles/:idProduct'],
    notes:
      '100 a page, at most 1,000 per filter set (`…/1000+` in `Content-Range`); filters that do not apply to the game are ignored.',
  },
  {
    method: 'GET',
    path: '/metaproducts/:idMetaproduct',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[CLI]',
    routes: ['GET /metaproducts/:idMetaproduct'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/metaproducts/find',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[FIX pymkm][CLI]',
    routes: ['GET /metaproducts/find'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/users/:idUser',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[CLI]',
    routes: ['GET /users/:idUser'],
    notes: 'Public User: `phone` and `email` are empty strings, the address only `{country}`.',
  },
  {
    method: 'GET',
    path: '/users/find',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[CLI]',
    routes: ['GET /users/find'],
    notes: 'Usernames starting with the search, any case; 100 a page.',
  },
  {
    method: 'GET',
    path: '/users/:idUser/articles',
    section: M,
    kinds: 'Ded, Wid, 3rd',
    source: '[DOC]',
    routes: ['GET /users/:idUser/articles'],
    notes: 'Unpaginated and larger: truncated to the first 1,000 (206), not redirected (spec §8).',
  },
  {
    method: 'POST',
    path: '/exports/userOffers/:idUser',
    section: M,
    kinds: 'Ded, 3rd',
    source: '[CLI ×3]',
    routes: ['POST /exports/userOffers/:idUser'],
    notes: "202 with exactly the recorded status body; the request's id is read from the list.",
  },
  {
    method: 'GET',
    path: '/exports/userOffers/:idUser',
    section: M,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /exports/userOffers/:idUser'],
    notes:
      'Exactly `idRequest, idUser, status, startedAt, finishedAt, type, resourceId, url`; times as `YYYY-MM-DD HH:MM:SS` (unfinished: `0000-00-00 00:00:00`, `url` "").',
  },
  {
    method: 'GET',
    path: '/exports/userOffers',
    section: M,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /exports/userOffers'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/order/:idOrder',
    section: O,
    kinds: 'Ded, 3rd',
    source: '[FIX]',
    routes: ['GET /order/:idOrder'],
    notes: 'Only to its buyer or seller (404 otherwise). `isPresale` in every order, as recorded.',
  },
  {
    method: 'PUT',
    path: '/order/:idOrder',
    section: O,
    kinds: 'Ded, 3rd',
    source: '[DOC 1.1][CLI]',
    routes: ['PUT /order/:idOrder'],
    notes:
      "`relist` and `relistItems` both accepted. A sent order becomes `lost` when the buyer reports it (`requestCancellation` after `LOST_WAIT_PERIOD`) and the seller accepts: the live site's rule, not documented for the API.",
  },
  {
    method: 'PUT',
    path: '/order/:idOrder/tracking',
    section: O,
    kinds: 'Ded, 3rd',
    source: '[DOC news][CLI ×3]',
    routes: ['PUT /order/:idOrder/tracking'],
    notes: '',
  },
  {
    method: 'POST',
    path: '/order/:idOrder/evaluation',
    section: O,
    kinds: 'Ded, 3rd',
    source: '[DOC entity][CLI pisko]',
    routes: ['POST /order/:idOrder/evaluation'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/orders/:actor/:state[/:start]',
    section: O,
    kinds: 'Ded, 3rd',
    source: '[DOC][CLI]',
    routes: ['GET /orders/:actor/:state', 'GET /orders/:actor/:state/:start'],
    notes:
      'Sources disagree on an unpaginated list over 100 (410 or 307): 307 to the `/1` form, as the spec says. With a path start, `start`/`maxResults` in the query are ignored (a Python client sends both).',
  },
  {
    method: 'GET',
    path: '/shoppingcart',
    section: C,
    kinds: 'Ded, 3rd',
    source: '[DOC]',
    routes: ['GET /shoppingcart'],
    notes: 'An empty cart still carries `shoppingCart` (one empty element in XML).',
  },
  {
    method: 'PUT',
    path: '/shoppingcart',
    section: C,
    kinds: 'Ded, 3rd',
    source: '[DOC]',
    routes: ['PUT /shoppingcart'],
    notes:
      'An `<action>` anywhere but the top level is 400. Refused articles are listed in `failed` with a reason.',
  },
  {
    method: 'DELETE',
    path: '/shoppingcart',
    section: C,
    kinds: 'Ded, 3rd',
    source: '[DOC]',
    routes: ['DELETE /shoppingcart'],
    notes: '',
  },
  {
    method: 'PUT',
    path: '/shoppingcart/checkout',
    section: C,
    kinds: 'Ded, 3rd',
    source: '[CLI Kotlin]',
    routes: ['PUT /shoppingcart/checkout'],
    notes: 'Merges into an unpaid order of the same buyer and seller (`wasMergedInto`).',
  },
  {
    method: 'PUT',
    path: '/shoppingcart/shippingaddress',
    section: C,
    kinds: 'Ded, 3rd',
    source: '[CLI ×2]',
    routes: ['PUT /shoppingcart/shippingaddress'],
    notes: 'The country must be an ISO 3166-1 code (`DE` is stored as `D`).',
  },
  {
    method: 'GET',
    path: '/shoppingcart/shippingmethod/:idReservation',
    section: C,
    kinds: 'Ded, 3rd',
    source: '[1CLI Kotlin]',
    routes: ['GET /shoppingcart/shippingmethod/:idReservation'],
    notes: 'Prices from a documented demo table by seller and buyer country.',
  },
  {
    method: 'PUT',
    path: '/shoppingcart/shippingmethod/:idReservation',
    section: C,
    kinds: 'Ded, 3rd',
    source: '[CLI ×2]',
    routes: ['PUT /shoppingcart/shippingmethod/:idReservation'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/stock[/:start]',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[DOC][CLI]',
    routes: ['GET /stock', 'GET /stock/:start'],
    notes:
      'The two doc versions disagree: pages of 100 (current doc), 307 to `/stock/1` when unpaginated and larger.',
  },
  {
    method: 'POST',
    path: '/stock',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[DOC][CLI]',
    routes: ['POST /stock'],
    notes: 'Card flags on sealed product are refused per article; `idLanguage` and `language` must agree.',
  },
  {
    method: 'PUT',
    path: '/stock',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[DOC][CLI]',
    routes: ['PUT /stock'],
    notes: 'The spec wins over the reference: `amount` is mandatory (the copies the change applies to).',
  },
  {
    method: 'DELETE',
    path: '/stock',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI Cardmonitor]',
    routes: ['DELETE /stock'],
    notes: '',
  },
  {
    method: 'PUT',
    path: '/stock/increase, /stock/decrease',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[DOC news]',
    routes: ['PUT /stock/increase', 'PUT /stock/decrease'],
    notes: '`count` or `amount`; non-integers are 400.',
  },
  {
    method: 'GET',
    path: '/stock/file',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI][DOC news]',
    routes: ['GET /stock/file'],
    notes: 'Streamed; an unknown game or language is 404/400 before the file starts.',
  },
  {
    method: 'GET',
    path: '/stock/shoppingcart-articles',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI ×5]',
    routes: ['GET /stock/shoppingcart-articles'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/stock/article/:idArticle',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[FIX Cardmonitor]',
    routes: ['GET /stock/article/:idArticle'],
    notes:
      'The detailed Product beside the article, as recorded; another seller\'s article is "not in your stock".',
  },
  {
    method: 'GET',
    path: '/stock/articles/:name/:idGame',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /stock/articles/:name/:idGame'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/stock/products/:idProduct',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /stock/products/:idProduct'],
    notes: '',
  },
  {
    method: 'POST',
    path: '/exports/stock',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI ×2]',
    routes: ['POST /exports/stock'],
    notes: 'Not shown by the reference: the same 202 body as the recorded user-offer export.',
  },
  {
    method: 'GET',
    path: '/exports/stock',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI Cardmonitor]',
    routes: ['GET /exports/stock'],
    notes: 'The entity\'s shape is the recorded user-offer one; `type` "Stock Export" is a guess.',
  },
  {
    method: 'GET',
    path: '/exports/stock/:idExport',
    section: S,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['GET /exports/stock/:idExport'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/wantslist',
    section: W,
    kinds: 'Ded, 3rd',
    source: '[FIX pymkm]',
    routes: ['GET /wantslist'],
    notes: '',
  },
  {
    method: 'POST',
    path: '/wantslist',
    section: W,
    kinds: 'Ded, 3rd',
    source: '[CLI ×4]',
    routes: ['POST /wantslist'],
    notes:
      "Names are not limited to ≈8 characters (one SDK's report); a name already used by the user is refused.",
  },
  {
    method: 'GET',
    path: '/wantslist/:idWantslist',
    section: W,
    kinds: 'Ded, 3rd',
    source: '[FIX pymkm]',
    routes: ['GET /wantslist/:idWantslist'],
    notes: "A want's product has no `links`, and the list's `game` none, as recorded.",
  },
  {
    method: 'PUT',
    path: '/wantslist/:idWantslist',
    section: W,
    kinds: 'Ded, 3rd',
    source: '[CLI ×4][DOC news]',
    routes: ['PUT /wantslist/:idWantslist'],
    notes: '`wishPrice` codes (`+0.02`, `-0.37`, `90%`, `FROM`, `SELL`) are resolved when written.',
  },
  {
    method: 'DELETE',
    path: '/wantslist/:idWantslist',
    section: W,
    kinds: 'Ded, 3rd',
    source: '[CLI]',
    routes: ['DELETE /wantslist/:idWantslist'],
    notes: '',
  },
  {
    method: 'GET',
    path: '/authenticate/:appToken[/:lang]',
    section: AUTH,
    kinds: '3rd (browser)',
    source: '[DOC Auth_MKMLogin]',
    routes: ['GET /authenticate/:appToken', 'GET /authenticate/:appToken/:lang'],
    notes:
      "A browser page, not an API call: 403 for dedicated and widget apps, as documented; a third-party app's token is sent on (303) to the website's sign-in and consent pages.",
  },
  {
    method: 'POST',
    path: '/access',
    section: AUTH,
    kinds: '3rd',
    source: '[DOC partial][1CLI Cardmonitor]',
    routes: ['POST /access'],
    notes:
      "What to sign with was never published: the app token and secret with an empty token secret, and `oauth_token` empty or the request token, are both accepted. Used, expired, unknown and other apps' request tokens each have their own 401 code.",
  },
  {
    method: 'GET',
    path: '(generate captcha)',
    section: '§1.8 MKM/API services',
    kinds: '3rd',
    source: '[3P table]',
    routes: [],
    notes: 'Not implemented: deprecated on the live API.',
  },
];

/** What cardbazaar serves that the live API never had, or had elsewhere. */
export const EXTENSIONS: Extension[] = [
  {
    routes: ['GET /events'],
    what: 'The event feed: the caller\'s public events after `since` (README, "Events and webhooks")',
    notes:
      'The live API shows no events (spec §6). Paged like the other lists (206/200/204, `maxResults` up to 100); the same events go to webhooks. Tested in `test/events-feed.test.ts`.',
  },
  {
    routes: ['GET /openapi.json'],
    what: 'The API described: an OpenAPI 3.1 document generated from the routes',
    notes:
      'Unsigned. The live API had no machine-readable description; `/docs/api/reference` renders this one. Tested in `test/openapi.test.ts`.',
  },
  {
    routes: ['GET /exports/files/:idRequest/:token'],
    what: "The file behind a finished export's `url`",
    notes:
      'An unguessable, expiring link that needs no signature, as the live file links did; shown only to the owner.',
  },
  {
    routes: [
      'GET /productCatalog/productList/products_singles_{idGame}.json',
      'GET /productCatalog/productList/products_nonsingles_{idGame}.json',
      'GET /productCatalog/priceGuide/price_guide_{idGame}.json',
    ],
    what: 'The catalog download files (reference §1.9), outside `/ws`',
    notes:
      "The live service serves them from its S3 bucket; here at the same paths on the server's own address, with ETag/Last-Modified and gzip. Tested in `test/catalog-downloads.test.ts`.",
  },
];
