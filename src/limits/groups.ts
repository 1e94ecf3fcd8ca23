/**
 * Which request group every route belongs to: the one table the limits read. Spec §8 counts the
 * marketplace group (games, expansions, products, articles, users, metaproducts, price guide…)
 * against a separate daily cap, and restricts some groups to one request at a time per client IP;
 * everything else only uses the overall quota.
 *
 * Keys are `METHOD /path` as the Router registers them (relative to /ws/v2.0). A route that is
 * missing here fails `test/limits-groups.test.ts`, so a new route cannot ship without a group.
 */

/** The public marketplace (reference §1.3): capped at LIMITS_DAILY_MARKETPLACE a day. */
const MARKETPLACE_GROUP_NAMES = [
  'games',
  'expansions',
  'products',
  'productSearch',
  'metaproducts',
  'articles',
  'users',
  'userArticles',
  'productlist',
  'priceguide',
] as const;

export const REQUEST_GROUP_NAMES = [
  ...MARKETPLACE_GROUP_NAMES,
  // A user's own things.
  'account',
  'messages',
  'stock',
  'stockFile',
  'exports',
  'shoppingcart',
  'orders',
  'wantslist',
  'authentication',
  // The event feed (an extension).
  'events',
  // The API's description: unsigned, so no app is counted.
  'documentation',
] as const;

export type RequestGroup = (typeof REQUEST_GROUP_NAMES)[number];

/** The groups whose requests count against the daily marketplace cap. */
export const MARKETPLACE_GROUPS: ReadonlySet<RequestGroup> = new Set<RequestGroup>(MARKETPLACE_GROUP_NAMES);

/** Every endpoint of the spec and the reference (§1.2–1.8), with its group. */
export const ROUTE_GROUPS: Readonly<Record<string, RequestGroup>> = {
  // Account management (reference §1.2).
  'GET /account': 'account',
  // The event feed (an extension; docs/api.md, "Events and webhooks").
  'GET /events': 'events',
  'PUT /account/vacation': 'account',
  'PUT /account/language': 'account',
  'POST /account/coupon': 'account',
  'POST /account/logout': 'account',
  'POST /account/logindata': 'account',
  'POST /account/selleractivation': 'account',
  'PUT /account/selleractivation': 'account',
  // Messages (spec §4.1).
  'GET /account/messages': 'messages',
  'GET /account/messages/find': 'messages',
  'GET /account/messages/:idOtherUser': 'messages',
  'GET /account/messages/:idOtherUser/:idMessage': 'messages',
  'POST /account/messages/:idOtherUser': 'messages',
  'DELETE /account/messages/:idOtherUser': 'messages',
  'DELETE /account/messages/:idOtherUser/:idMessage': 'messages',
  // The public marketplace (reference §1.3).
  'GET /games': 'games',
  'GET /games/:idGame/expansions': 'expansions',
  'GET /expansions/:idExpansion/singles': 'expansions',
  'GET /products/:idProduct': 'products',
  'GET /products/find': 'productSearch',
  'GET /productlist': 'productlist',
  'GET /priceguide': 'priceguide',
  'GET /metaproducts/:idMetaproduct': 'metaproducts',
  'GET /metaproducts/find': 'metaproducts',
  'GET /articles/:idProduct': 'articles',
  'GET /users/:idUser': 'users',
  'GET /users/find': 'users',
  'GET /users/:idUser/articles': 'userArticles',
  // Exports: of another user's offers (reference §1.3) and of one's own stock (§1.6).
  'POST /exports/userOffers/:idUser': 'exports',
  'GET /exports/userOffers/:idUser': 'exports',
  'GET /exports/userOffers': 'exports',
  'POST /exports/stock': 'exports',
  'GET /exports/stock': 'exports',
  'GET /exports/stock/:idExport': 'exports',
  // The export download link: unsigned (the link is its own key), so no app is counted.
  'GET /exports/files/:idRequest/:token': 'exports',
  // Orders (spec §4.3, reference §1.4).
  'GET /order/:idOrder': 'orders',
  'PUT /order/:idOrder': 'orders',
  'PUT /order/:idOrder/tracking': 'orders',
  'POST /order/:idOrder/evaluation': 'orders',
  'GET /orders/:actor/:state': 'orders',
  'GET /orders/:actor/:state/:start': 'orders',
  // Shopping cart (spec §4.2, reference §1.5).
  'GET /shoppingcart': 'shoppingcart',
  'PUT /shoppingcart': 'shoppingcart',
  'DELETE /shoppingcart': 'shoppingcart',
  'PUT /shoppingcart/checkout': 'shoppingcart',
  'PUT /shoppingcart/shippingaddress': 'shoppingcart',
  'GET /shoppingcart/shippingmethod/:idReservation': 'shoppingcart',
  'PUT /shoppingcart/shippingmethod/:idReservation': 'shoppingcart',
  // Stock (spec §4.4, reference §1.6).
  'GET /stock': 'stock',
  'GET /stock/:start': 'stock',
  'POST /stock': 'stock',
  'PUT /stock': 'stock',
  'DELETE /stock': 'stock',
  'PUT /stock/increase': 'stock',
  'PUT /stock/decrease': 'stock',
  'GET /stock/file': 'stockFile',
  'GET /stock/shoppingcart-articles': 'stock',
  'GET /stock/article/:idArticle': 'stock',
  'GET /stock/articles/:name/:idGame': 'stock',
  'GET /stock/products/:idProduct': 'stock',
  // Wants lists (reference §1.7).
  'GET /wantslist': 'wantslist',
  'POST /wantslist': 'wantslist',
  'GET /wantslist/:idWantslist': 'wantslist',
  'PUT /wantslist/:idWantslist': 'wantslist',
  'DELETE /wantslist/:idWantslist': 'wantslist',
  // Third-party app authentication (reference §1.8).
  'POST /access': 'authentication',
  // The browser page of the authorization flow: unsigned, so no app is counted, but classified.
  'GET /authenticate/:appToken': 'authentication',
  'GET /authenticate/:appToken/:lang': 'authentication',
  // The OpenAPI document (issue 15): unsigned.
  'GET /openapi.json': 'documentation',
};

/**
 * A route key with its parameter names blanked (`GET /articles/:idProduct` → `GET /articles/:`):
 * the router tells routes apart by shape, so a parameter named differently is the same route.
 */
export function routeShape(routeKey: string): string {
  return routeKey.replace(/:[^/]+/g, ':');
}

const BY_SHAPE = new Map<string, RequestGroup>(
  Object.entries(ROUTE_GROUPS).map(([key, group]) => [routeShape(key), group]),
);

/** The group of a route, or undefined when the table lacks it (a test keeps that from shipping). */
export function groupOf(routeKey: string): RequestGroup | undefined {
  return BY_SHAPE.get(routeShape(routeKey));
}
