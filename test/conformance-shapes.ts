import assert from 'node:assert/strict';
import { XMLParser } from 'fast-xml-parser';

/**
 * The shapes real clients parse, written down once: every key of an entity, in order, with the type
 * a strict client model gives it (reference §2; recorded responses where they exist). The
 * conformance suites hold each endpoint's JSON to these, and its XML to the JSON: the same elements
 * in the same order, arrays as repeated elements, null as an empty element, money with two decimals.
 *
 * A spec is
 *  - a leaf: `'int'`, `'money'` (a number with at most two decimals), `'string'`, `'boolean'`,
 *    `'timestamp'` (ISO 8601 with a `+0100`-style offset), `'hex24'`, `'null'`, or alternatives
 *    joined by `|` (`'string|null'`), or `eq(value)` for a fixed value;
 *  - an object: exactly these keys, in this order;
 *  - `list(spec, min)`: an array of at least `min` (default 1) elements of that spec;
 *  - `presentList(spec, min)`: the same, for a list the answer carries even empty (min default 0);
 *  - `nullable(spec)`: null, or that spec.
 */
export type Spec = string | Eq | ListSpec | NullableSpec | Check | Dynamic | { [key: string]: Spec };

class Eq {
  constructor(readonly value: unknown) {}
}
class ListSpec {
  constructor(
    readonly item: Spec,
    readonly min: number,
    /** Written even when empty: one empty element in XML (`presentList`). */
    readonly present = false,
  ) {}
}
class NullableSpec {
  constructor(readonly spec: Spec) {}
}
class Check {
  constructor(readonly assertValue: (value: unknown, path: string) => void) {}
}
class Dynamic {
  constructor(readonly specOf: (value: unknown) => Spec) {}
}

export const eq = (value: unknown) => new Eq(value);
export const list = (item: Spec, min = 1) => new ListSpec(item, min);
/** A list the answer always carries: may be empty, and then is one empty element in XML. */
export const presentList = (item: Spec, min = 0) => new ListSpec(item, min, true);
export const nullable = (spec: Spec) => new NullableSpec(spec);
/** A value checked by a function of its own (it throws an assertion error when it does not fit). */
export const check = (assertValue: (value: unknown, path: string) => void) => new Check(assertValue);
/** The spec that fits this value (e.g. an article's, by its game), chosen from the value itself. */
export const dynamic = (specOf: (value: unknown) => Spec) => new Dynamic(specOf);

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$/;

function leafMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'int':
      return Number.isInteger(v);
    case 'money':
      return typeof v === 'number' && Number.isFinite(v) && Math.abs(Math.round(v * 100) - v * 100) < 1e-6;
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'timestamp':
      return typeof v === 'string' && TIMESTAMP.test(v);
    case 'hex24':
      return typeof v === 'string' && /^[0-9a-f]{24}$/.test(v);
    case 'null':
      return v === null;
    default:
      throw new Error(`unknown leaf type ${type}`);
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Asserts that a parsed JSON value has exactly the shape of the spec. */
export function assertShape(value: unknown, spec: Spec, path = '$'): void {
  if (spec instanceof Dynamic) {
    assertShape(value, spec.specOf(value), path);
    return;
  }
  if (typeof spec === 'string') {
    assert.ok(
      spec.split('|').some((t) => leafMatches(t, value)),
      `${path}: expected ${spec}, got ${JSON.stringify(value)}`,
    );
    return;
  }
  if (spec instanceof Eq) {
    assert.deepEqual(value, spec.value, `${path}: expected ${JSON.stringify(spec.value)}`);
    return;
  }
  if (spec instanceof NullableSpec) {
    if (value !== null) assertShape(value, spec.spec, path);
    return;
  }
  if (spec instanceof Check) {
    spec.assertValue(value, path);
    return;
  }
  if (spec instanceof ListSpec) {
    assert.ok(Array.isArray(value), `${path}: expected an array, got ${JSON.stringify(value)}`);
    assert.ok(
      value.length >= spec.min,
      `${path}: expected at least ${spec.min} elements, got ${value.length}`,
    );
    value.forEach((item, i) => assertShape(item, spec.item, `${path}[${i}]`));
    return;
  }
  assert.ok(isPlainObject(value), `${path}: expected an object, got ${JSON.stringify(value)}`);
  assert.deepEqual(Object.keys(value), Object.keys(spec), `${path}: keys or their order differ`);
  for (const [key, child] of Object.entries(spec)) assertShape(value[key], child, `${path}.${key}`);
}

// ---------------------------------------------------------------------------------------------
// XML against JSON

type XmlNode = { [name: string]: XmlNode[] } | { '#text': string };

const xmlParser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  parseTagValue: false,
  trimValues: false,
});

const elementName = (node: XmlNode) => Object.keys(node)[0]!;
const childElements = (nodes: XmlNode[]) => nodes.filter((n) => elementName(n) !== '#text');
const textOf = (nodes: XmlNode[]) =>
  nodes
    .filter((n) => elementName(n) === '#text')
    .map((n) => (n as { '#text': string })['#text'])
    .join('');

/** The element spec of a key, through `nullable` (for the money check). */
function childSpec(spec: Spec | undefined, key: string): Spec | undefined {
  if (spec instanceof NullableSpec) return childSpec(spec.spec, key);
  if (
    spec === undefined ||
    typeof spec === 'string' ||
    spec instanceof Eq ||
    spec instanceof ListSpec ||
    spec instanceof Check ||
    spec instanceof Dynamic
  ) {
    return undefined;
  }
  const child = spec[key];
  return child instanceof ListSpec ? child.item : child;
}

interface CompareOptions {
  /** Compare values too (false: only the tree and the kind of each value, for equivalent writes). */
  values: boolean;
}

function compareElement(
  nodes: XmlNode[],
  value: unknown,
  spec: Spec | undefined,
  path: string,
  options: CompareOptions,
): void {
  if (spec instanceof Dynamic) spec = spec.specOf(value);
  if (value === null) {
    assert.equal(
      childElements(nodes).length + textOf(nodes).length,
      0,
      `${path}: null must be an empty element`,
    );
    return;
  }
  if (isPlainObject(value)) {
    compareChildren(childElements(nodes), value, spec, path, options);
    return;
  }
  assert.equal(childElements(nodes).length, 0, `${path}: a value, not elements`);
  const text = textOf(nodes);
  switch (typeof value) {
    case 'string':
      if (options.values) assert.equal(text, value, path);
      return;
    case 'boolean':
      if (options.values) assert.equal(text, String(value), path);
      else assert.match(text, /^(true|false)$/, path);
      return;
    case 'number':
      if (options.values) assert.equal(Number(text), value, `${path}: ${text} is not ${value}`);
      else assert.match(text, /^-?\d+(\.\d+)?$/, path);
      if (typeof spec === 'string' && spec.split('|').includes('money')) {
        assert.match(text, /^-?\d+\.\d\d$/, `${path}: money has two decimals in XML`);
      }
      return;
    default:
      assert.fail(`${path}: unexpected JSON value ${JSON.stringify(value)}`);
  }
}

function compareChildren(
  elements: XmlNode[],
  obj: Record<string, unknown>,
  spec: Spec | undefined,
  path: string,
  options: CompareOptions,
) {
  const expected: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined) continue;
    const keySpec = isPlainObject(spec) ? (spec as Record<string, Spec>)[key] : undefined;
    // An empty list the answer always carries is one empty element, as null is.
    if (Array.isArray(value) && value.length === 0 && keySpec instanceof ListSpec && keySpec.present) {
      expected.push([key, null]);
    } else if (Array.isArray(value)) for (const item of value) expected.push([key, item]);
    else expected.push([key, value]);
  }
  assert.deepEqual(
    elements.map(elementName),
    expected.map(([key]) => key),
    `${path}: XML elements differ from the JSON keys`,
  );
  expected.forEach(([key, value], i) => {
    const node = elements[i]!;
    const content = (node as Record<string, XmlNode[]>)[key]!;
    compareElement(content, value, childSpec(spec, key), `${path}.${key}`, options);
  });
}

/**
 * Asserts that an XML response carries the same tree as its JSON twin: root `response`, the same
 * elements in the same order, repeated elements for arrays, empty elements for null, the same values
 * (money with exactly two decimals where the spec says money). With `values: false` the values
 * need only be of the same kind: for the XML answer of an equivalent write.
 */
export function assertXmlMatchesJson(xml: string, json: unknown, spec?: Spec, { values = true } = {}): void {
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<response>/);
  const doc = xmlParser.parse(xml) as XmlNode[];
  assert.equal(doc.length, 1, 'one root element');
  assert.equal(elementName(doc[0]!), 'response');
  assert.ok(isPlainObject(json), 'the JSON body is an object');
  compareChildren(childElements((doc[0] as Record<string, XmlNode[]>).response!), json, spec, '$', {
    values,
  });
}

// ---------------------------------------------------------------------------------------------
// The entities

export const LINK = { rel: 'string', href: 'string', method: 'string' };
export const LINKS = list(LINK);

/** Address (reference §2.3). */
export const ADDRESS = {
  name: 'string',
  extra: 'string|null',
  street: 'string',
  zip: 'string',
  city: 'string',
  country: 'string',
};

/** Account (spec §2.1). */
export const ACCOUNT = {
  idUser: 'int',
  username: 'string',
  country: 'string',
  isCommercial: 'int',
  maySell: 'boolean',
  sellerActivation: 'int',
  riskGroup: 'int',
  lossPercentage: 'string',
  reputation: 'int',
  shipsFast: 'int',
  sellCount: 'int',
  soldItems: 'int',
  avgShippingTime: 'int',
  onVacation: 'boolean',
  idDisplayLanguage: 'int',
  name: { firstName: 'string', lastName: 'string' },
  homeAddress: ADDRESS,
  email: 'string',
  phoneNumber: 'string',
  vat: 'string|null',
  legalInformation: 'string',
  registerDate: 'timestamp',
  isActivated: 'boolean',
  moneyDetails: {
    totalBalance: 'money',
    moneyBalance: 'money',
    bonusBalance: 'money',
    unpaidAmount: 'money',
    providerRechargeAmount: 'money',
  },
  bankAccount: { accountOwner: 'string', iban: 'string', bic: 'string', bankName: 'string' },
  articlesInShoppingCart: 'int',
  unreadMessages: 'int',
};

export const ACCOUNT_LINKS = eq([
  { rel: 'self', href: '/account', method: 'GET' },
  { rel: 'vacation', href: '/account/vacation', method: 'PUT' },
  { rel: 'language', href: '/account/language', method: 'PUT' },
  { rel: 'list_message_threads', href: '/account/messages', method: 'GET' },
  { rel: 'redeem_coupon', href: '/account/coupon', method: 'POST' },
]);

/** User (reference §2.2): the fields every form has, around the parts that depend on who looks. */
function user(name: Spec, address: Spec) {
  return {
    idUser: 'int',
    username: 'string',
    registrationDate: 'timestamp',
    isCommercial: 'int',
    isSeller: 'boolean',
    name,
    address,
    phone: 'string',
    email: 'string',
    vat: 'string|null',
    legalInformation: 'string',
    riskGroup: 'int',
    lossPercentage: 'string',
    unsentShipments: 'int',
    reputation: 'int',
    shipsFast: 'int',
    sellCount: 'int',
    soldItems: 'int',
    avgShippingTime: 'int',
    onVacation: 'boolean',
    links: LINKS,
  };
}
/** A marketplace listing's seller, a profile, a cart's seller: no contact or street address. */
export const USER_PUBLIC = user({ company: 'string|null', firstName: 'string' }, { country: 'string' });
/** The other party of an order or a message thread. */
export const USER_COUNTERPARTY = user(
  { company: 'string|null', firstName: 'string', lastName: 'string' },
  ADDRESS,
);

/** Game (reference §2.4). */
export const GAME = { idGame: 'int', name: 'string', abbreviation: 'string', links: LINKS };

/** Localization (reference §2.6): the five display languages, ids as numbers. */
export const LOCALIZATION = list({ name: 'string', idLanguage: 'int', languageName: 'string' }, 5);

/** Expansion (reference §2.5). */
export const EXPANSION = {
  idExpansion: 'int',
  enName: 'string',
  localization: LOCALIZATION,
  abbreviation: 'string',
  icon: 'int',
  releaseDate: 'timestamp',
  isReleased: 'boolean',
  idGame: 'int',
  links: LINKS,
};

/** Product (reference §2.7): what both forms share. `single`: a single card (number, rarity). */
function productCore(single: boolean) {
  return {
    idProduct: 'int',
    idMetaproduct: 'int|null',
    countReprints: 'int',
    enName: 'string',
    locName: 'string',
    localization: LOCALIZATION,
    website: 'string',
    image: 'string',
    gameName: 'string',
    categoryName: 'string',
    idGame: 'int',
    number: single ? 'string' : 'string|null',
    rarity: single ? 'string' : 'string|null',
  };
}

/** Find, expansion singles, a metaproduct's printings; inside a want without links. */
export function productListed({ single = true, links = true } = {}) {
  const out: Record<string, Spec> = {
    ...productCore(single),
    expansionName: 'string',
    expansionIcon: 'int',
    countArticles: 'int',
    countFoils: 'int',
  };
  if (links) out.links = LINKS;
  return out;
}

const PRICE_GUIDE_KEYS = ['SELL', 'LOW', 'LOWEX', 'LOWFOIL', 'AVG', 'TREND', 'TRENDFOIL'];
/**
 * The price guide of a product page: only the keys known (`keys`, or any when not given), in the
 * reference's order, each money.
 */
export const priceGuide = (keys?: string[]) =>
  check((value, path) => {
    assert.ok(isPlainObject(value), `${path}: an object`);
    const present = Object.keys(value);
    assert.deepEqual(
      present,
      PRICE_GUIDE_KEYS.filter((k) => present.includes(k)),
      `${path}: known keys in order`,
    );
    if (keys) assert.deepEqual(present, keys, path);
    for (const k of present) assertShape(value[k], 'money', `${path}.${k}`);
  });

/** GET /products/:id, and the product beside `GET /stock/article/:id`. */
export function productDetail({ single = true, guide }: { single?: boolean; guide?: string[] } = {}) {
  return {
    ...productCore(single),
    expansion: { idExpansion: 'int', enName: 'string', expansionIcon: 'int' },
    priceGuide: priceGuide(guide),
    reprint: list({ idProduct: 'int', expansion: 'string', expIcon: 'int' }),
    countArticles: 'int',
    countFoils: 'int',
    links: LINKS,
  };
}

/** The short product inside an Article (reference §2.8). */
export function shortProduct({ single = true } = {}) {
  return {
    idGame: 'int',
    enName: 'string',
    locName: 'string',
    image: 'string',
    idExpansion: 'int',
    expansion: 'string',
    abbreviation: 'string',
    nr: single ? 'string' : 'null',
    expIcon: 'int',
    rarity: single ? 'string' : 'null',
  };
}

/** Metaproduct (reference §2.9). */
export const METAPRODUCT = {
  idMetaproduct: 'int',
  enName: 'string',
  locName: 'string',
  localization: LOCALIZATION,
  image: 'string',
  links: LINKS,
};

/** The flags of each game's articles, in the order recorded responses write them. */
export const GAME_FLAGS: Record<number, string[]> = {
  1: ['isFoil', 'isSigned', 'isPlayset', 'isAltered'],
  3: ['isSigned', 'isAltered', 'isFirstEd'],
  6: ['isReverseHolo', 'isSigned', 'isAltered', 'isFirstEd'],
};

/**
 * Article (reference §2.10) in its contexts: `marketplace` (prices in every currency, the seller),
 * `stock` (lastEdited, onSale), `cart` and `order`; condition for single cards only; the flags of
 * the product's game.
 */
export function article({
  context,
  idGame = 1,
  single = true,
  withProduct = true,
  seller = USER_PUBLIC as Spec,
}: {
  context: 'marketplace' | 'stock' | 'cart' | 'order';
  idGame?: number;
  single?: boolean;
  withProduct?: boolean;
  seller?: Spec;
}) {
  const out: Record<string, Spec> = {
    idArticle: 'int',
    idProduct: 'int',
    language: { idLanguage: 'int', languageName: 'string' },
    comments: 'string',
    price: 'money',
    idCurrency: eq(1),
    currencyCode: eq('EUR'),
  };
  if (context === 'marketplace')
    out.prices = list({ price: 'money', idCurrency: 'int', currencyCode: 'string' });
  out.count = 'int';
  out.inShoppingCart = 'boolean';
  if (withProduct) out.product = shortProduct({ single });
  if (context === 'marketplace') out.seller = seller;
  if (context === 'stock') {
    out.lastEdited = 'timestamp';
    out.onSale = 'boolean';
  }
  if (single) out.condition = 'string';
  for (const flag of GAME_FLAGS[idGame]!) out[flag] = 'boolean';
  out.links = LINKS;
  return out;
}

/** ShippingMethod (reference §2.14). */
export const SHIPPING_METHOD = {
  idShippingMethod: 'int',
  name: 'string',
  price: 'money',
  idCurrency: eq(1),
  currencyCode: eq('EUR'),
  isLetter: 'boolean',
  isInsured: 'boolean',
};

/** Evaluation (reference §2.12). */
export const EVALUATION = {
  evaluationGrade: 'int',
  itemDescription: 'int',
  packaging: 'int',
  speed: 'int|null',
  comment: 'string',
  complaint: presentList('string'),
};

/** The cancellation request of one party: null, or the reason and when. */
const CANCELLATION_REQUEST = nullable({ reason: 'string', date: 'timestamp' });

/**
 * Order (reference §2.11). `state`: the state object's exact keys (the dates passed, then reason and
 * wasMergedInto where they apply). `evaluated`: whether the evaluation is there.
 */
export function order({
  state,
  evaluated = false,
  articles = article({ context: 'order' }),
}: {
  state: Spec;
  evaluated?: boolean;
  /** The spec of its articles (default: Magic single cards). */
  articles?: Spec;
}) {
  return {
    idOrder: 'int',
    isBuyer: 'boolean',
    seller: USER_COUNTERPARTY,
    buyer: USER_COUNTERPARTY,
    state,
    shippingMethod: SHIPPING_METHOD,
    trackingNumber: 'string',
    temporaryEmail: 'string',
    isPresale: 'boolean',
    shippingAddress: ADDRESS,
    articleCount: 'int',
    note: 'string',
    evaluation: evaluated ? EVALUATION : 'null',
    article: list(articles),
    articleValue: 'money',
    totalValue: 'money',
    idCurrency: eq(1),
    currencyCode: eq('EUR'),
    phoneNumber: 'string',
    vatCollectedByCm: 'null',
    cancellationRequests: {
      cancellationRequestBuyer: CANCELLATION_REQUEST,
      cancellationRequestSeller: CANCELLATION_REQUEST,
    },
    links: LINKS,
  };
}

/** The state object with these dates, in the order the reference lists them. */
export function orderState(dates: string[], extra: Record<string, Spec> = {}) {
  const out: Record<string, Spec> = { state: 'string' };
  for (const d of ['dateBought', 'datePaid', 'dateSent', 'dateReceived', 'dateLost', 'dateCancelled']) {
    if (dates.includes(d)) out[d] = 'timestamp';
  }
  return { ...out, ...extra };
}

/** A Reservation of the cart (reference §2.16). */
export const RESERVATION = {
  idReservation: 'int',
  isBuyer: eq(true),
  seller: USER_PUBLIC,
  article: list(article({ context: 'cart' })),
  articleValue: 'money',
  articleCount: 'int',
  shippingMethod: SHIPPING_METHOD,
  totalValue: 'money',
};

/** ShoppingCart (reference §2.16). */
export function shoppingCart(reservations = 1) {
  return {
    account: ACCOUNT,
    shippingAddress: ADDRESS,
    shoppingCart: presentList(RESERVATION, reservations),
  };
}

/** Message (reference §2.15). */
export const MESSAGE = {
  idMessage: 'hex24',
  isSending: 'boolean',
  date: 'timestamp',
  text: 'string',
  unread: 'boolean',
};

/**
 * A thread: in the overview one message (an object), a thread itself its messages (an array). The
 * partner is the public user: writing to someone reveals nothing of their address or email.
 */
export function thread(form: 'overview' | 'thread') {
  return {
    partner: USER_PUBLIC,
    message: form === 'overview' ? MESSAGE : list(MESSAGE),
    unreadMessages: 'int',
    links: LINKS,
  };
}

/** The wants list's game: the Game entity without links, as recorded. */
const WANTSLIST_GAME = { idGame: 'int', name: 'string', abbreviation: 'string' };

/** Wantslist (reference §2.17): in a list of lists, or alone with its items. */
export function wantslist(items?: Spec): Spec {
  return items === undefined
    ? { idWantslist: 'int', game: WANTSLIST_GAME, name: 'string', itemCount: 'int', links: LINKS }
    : { idWantslist: 'int', game: WANTSLIST_GAME, name: 'string', itemCount: 'int', item: items };
}

/** A want of a product or a metaproduct, with the flags of a Magic list. */
export function want(type: 'product' | 'metaproduct') {
  const target: Record<string, Spec> =
    type === 'product'
      ? { idProduct: 'int', product: productListed({ links: false }) }
      : { idMetaproduct: 'int', metaproduct: METAPRODUCT };
  return {
    idWant: 'hex24',
    count: 'int',
    wishPrice: 'money',
    fromPrice: 'money|null',
    mailAlert: 'boolean',
    type: eq(type),
    ...target,
    idLanguage: presentList('int'),
    minCondition: 'string',
    isFoil: 'boolean|null',
    isSigned: 'boolean|null',
    isAltered: 'boolean|null',
  };
}

/** An export request (reference §1.3, §1.6). */
const DATE_TIME_TEXT = check((v, path) =>
  assert.match(String(v), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, `${path}: YYYY-MM-DD HH:MM:SS`),
);

/** An export request as the live API recorded a user-offer export (no idGame; url "" until ready). */
export const EXPORT = {
  idRequest: 'int',
  idUser: 'int',
  status: 'string',
  startedAt: DATE_TIME_TEXT,
  finishedAt: DATE_TIME_TEXT,
  type: 'string',
  resourceId: 'string',
  url: 'string',
};

/** The 202 of an export request: exactly the live API's status body. */
export const EXPORT_ACCEPTED = {
  mkm_error_description: eq(
    'The request has been accepted for processing, but the processing has not been completed.',
  ),
  http_status_code: eq(202),
  http_status_code_description: eq('Accepted'),
  rfc2616_description_link: eq('https://www.rfc-editor.org/rfc/rfc9110.html#name-status-codes'),
};

/** The error body (reference §3), also the status fields of a 202. */
export const ERROR = {
  mkm_error_description: 'string',
  internal_error_code: 'string|null',
  post_data_field: 'string|null',
  http_status_code: 'int',
  http_status_code_description: 'string',
  rfc2616_description_link: 'string|null',
};
