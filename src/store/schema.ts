import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Column types of every table, named as the API names things (`idUser`, `idArticle`), so a reader
 * goes from the spec to the SQL by search. Conventions, the same on SQLite and PostgreSQL:
 *  - money is integer cents (`bigint`), never a float;
 *  - time is epoch milliseconds (`bigint`), formatted only by the serializer;
 *  - flags are integers 0/1 (better-sqlite3 cannot bind booleans).
 * Each migration that adds tables adds their interfaces here.
 */

export interface UsersTable {
  idUser: Generated<number>;
  username: string;
  passwordHash: string | null;
  country: string;
  /** 0 private, 1 professional (commercial), 2 powerseller. */
  isCommercial: number;
  maySell: number;
  sellerActivation: number;
  riskGroup: number;
  lossPercentage: string;
  reputation: number;
  shipsFast: number;
  onVacation: number;
  idDisplayLanguage: number;
  firstName: string;
  lastName: string;
  company: string | null;
  addressName: string;
  addressExtra: string | null;
  street: string;
  zip: string;
  city: string;
  email: string;
  phoneNumber: string;
  vat: string | null;
  legalInformation: string;
  registerDate: number;
  isActivated: number;
  moneyBalance: number;
  bonusBalance: number;
  providerRechargeAmount: number;
  accountOwner: string;
  iban: string;
  bic: string;
  bankName: string;
  /** Kept up to date by the order transitions, in the same transaction, so listings stay cheap. */
  sellCount: number;
  soldItems: number;
  avgShippingTime: number;
  unsentShipments: number;
}

export type AppKind = 'dedicated' | 'widget' | 'thirdParty';

export interface AppsTable {
  idApp: Generated<number>;
  idUser: number;
  kind: AppKind;
  name: string;
  /** SHA-256 of the app token: the token itself is derived from `salt` and the server key. */
  tokenHash: string;
  salt: string;
  callbackUrl: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface AccessTokensTable {
  idAccessToken: Generated<number>;
  idApp: number;
  /** The user this token acts for (the owner for dedicated apps). */
  idUser: number;
  tokenHash: string;
  salt: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface CouponsTable {
  couponCode: string;
  value: number;
  createdAt: number;
  redeemedBy: number | null;
  redeemedAt: number | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** The outbox: things the marketplace does on its own, recorded in the transaction that caused them. */
export interface EventsTable {
  idEvent: Generated<number>;
  type: string;
  /** JSON. */
  payload: string;
  createdAt: number;
  deliveredAt: number | null;
  attempts: number;
  lastError: string | null;
}

export interface GamesTable {
  idGame: number;
  name: string;
  abbreviation: string;
}

export interface ExpansionsTable {
  idExpansion: number;
  idGame: number;
  enName: string;
  abbreviation: string;
  icon: number;
  releaseDate: number | null;
  isReleased: number;
}

export interface MetaproductsTable {
  idMetaproduct: number;
  enName: string;
}

export interface ProductsTable {
  idProduct: number;
  idGame: number;
  idExpansion: number | null;
  idMetaproduct: number | null;
  idCategory: number;
  categoryName: string;
  enName: string;
  number: string | null;
  rarity: string | null;
  /** 1 for single cards (condition applies), 0 for sealed product and accessories. */
  isSingle: number;
  dateAdded: number | null;
  image: string;
}

/** Localized product names for the five display languages (1 EN, 2 FR, 3 DE, 4 ES, 5 IT). */
export interface ProductNamesTable {
  idProduct: number;
  idLanguage: number;
  name: string;
}

/**
 * A seller's offer. `count` is the number of copies available to buy right now: copies reserved in
 * buyers' carts have left it (they sit in the reservation), copies sold sit in the order. An
 * article whose `count` reaches 0 while copies are still reserved stays, so a released reservation
 * can return them.
 */
export interface ArticlesTable {
  idArticle: Generated<number>;
  idUser: number;
  idProduct: number;
  idLanguage: number;
  comments: string;
  /** Cents. */
  price: number;
  condition: string | null;
  isFoil: number;
  isSigned: number;
  isAltered: number;
  isPlayset: number;
  isFirstEd: number;
  isReverseHolo: number;
  count: number;
  createdAt: number;
  lastEdited: number;
}

/** The effective price guide (cents, null where unknown); see migration 0003 for the columns. */
export interface PriceGuidesTable {
  idProduct: number;
  sell: number | null;
  low: number | null;
  lowEx: number | null;
  lowFoil: number | null;
  avg: number | null;
  trend: number | null;
  trendFoil: number | null;
  sellFoil: number | null;
  lowGerman: number | null;
  suggested: number | null;
  avg1: number | null;
  avg7: number | null;
  avg30: number | null;
  foilAvg1: number | null;
  foilAvg7: number | null;
  foilAvg30: number | null;
  updatedAt: number;
}

/** One per buyer and seller: the part of a buyer's cart that one seller's articles make up. */
export interface ReservationsTable {
  idReservation: Generated<number>;
  idBuyer: number;
  idSeller: number;
  idShippingMethod: number | null;
  createdAt: number;
  expiresAt: number;
}

/** Copies held in a reservation; they are not in `articles.count` while held. */
export interface ReservationArticlesTable {
  idReservation: number;
  idArticle: number;
  count: number;
}

export type OrderState = 'bought' | 'paid' | 'sent' | 'received' | 'lost' | 'cancelled';

export interface OrdersTable {
  idOrder: Generated<number>;
  idBuyer: number;
  idSeller: number;
  state: OrderState;
  dateBought: number;
  datePaid: number | null;
  dateSent: number | null;
  dateReceived: number | null;
  dateCancelled: number | null;
  dateLost: number | null;
  /** When the state last changed: the waiting periods count from here. */
  lastStateChange: number;
  wasMergedInto: number | null;
  idShippingMethod: number | null;
  shippingMethodName: string;
  shippingPrice: number;
  isLetter: number;
  isInsured: number;
  trackingNumber: string | null;
  shippingName: string;
  shippingExtra: string | null;
  shippingStreet: string;
  shippingZip: string;
  shippingCity: string;
  shippingCountry: string;
  articleCount: number;
  /** Cents. */
  articleValue: number;
  /** Cents: articles plus shipping. */
  totalValue: number;
  /** The reason given, while a cancellation request by that party is open. */
  cancellationRequestBuyer: string | null;
  cancellationRequestSeller: string | null;
  relistOnCancel: number;
  note: string;
  // Added by migration 0005 (trading):
  /** Bumped by every change: a transition applies only to the revision it was decided on. */
  revision: number;
  /** Cents taken from each balance when the order was paid, held until reception or refund. */
  paidFromMoney: number;
  paidFromBonus: number;
  /** The reason an order was cancelled with (`state.reason`). */
  cancellationReason: string | null;
  cancellationRequestBuyerDate: number | null;
  cancellationRequestSellerDate: number | null;
}

/** An order line, frozen at checkout. */
export interface OrderArticlesTable {
  idOrder: number;
  idArticle: number;
  idProduct: number;
  idLanguage: number;
  comments: string;
  price: number;
  condition: string | null;
  isFoil: number;
  isSigned: number;
  isAltered: number;
  isPlayset: number;
  isFirstEd: number;
  isReverseHolo: number;
  count: number;
}

/**
 * A message, stored once for both sides. `idMessage` is the API's id (hex); `seq` orders a thread.
 * Each side's delete only sets its own flag; `unread` is the receiver's state.
 */
export interface MessagesTable {
  seq: Generated<number>;
  idMessage: string;
  idSender: number;
  idReceiver: number;
  text: string;
  date: number;
  unread: number;
  senderDeleted: number;
  receiverDeleted: number;
}

/** Users the marketplace itself acts as, by role (`system`: the sender of alerts and notices). */
export interface SystemAccountsTable {
  role: string;
  idUser: number;
}

export interface WantslistsTable {
  idWantslist: Generated<number>;
  idUser: number;
  idGame: number;
  name: string;
  createdAt: number;
}

/** A wants list item: a product or a metaproduct (exactly one of the two ids is set). */
export interface WantsTable {
  seq: Generated<number>;
  /** The API's id (hex). */
  idWant: string;
  idWantslist: number;
  idProduct: number | null;
  idMetaproduct: number | null;
  count: number;
  /** Cents; 0 is no wish price. */
  wishPrice: number;
  mailAlert: number;
  /** Comma-separated language ids; empty is any language. */
  idLanguages: string;
  minCondition: string;
  /** null: either; 0/1: must (not) be. */
  isFoil: number | null;
  isSigned: number | null;
  isAltered: number | null;
  isFirstEd: number | null;
  createdAt: number;
}

export type ExportType = 'stock' | 'userOffers';
export type ExportStatus = 'pending' | 'finished';

/** An export request of a stock or of another user's offers (reference §1.3, §1.6). */
export interface ExportsTable {
  idRequest: Generated<number>;
  /** Who asked for it, and the only one it is shown to. */
  idUser: number;
  type: ExportType;
  /** The user whose articles are exported: the requester for `stock`, another user for `userOffers`. */
  resourceId: number;
  /** Only this game's articles, when asked for (`?idGame=`). */
  idGame: number | null;
  status: ExportStatus;
  /** Random; the download link's token is derived from it and the server key, never stored. */
  salt: string;
  startedAt: number;
  /** When a build of the file was last claimed (a build not finished long after is retried). */
  buildingSince: number | null;
  finishedAt: number | null;
  /** Listed and downloadable until then (24 hours after the request). */
  expiresAt: number;
  articleCount: number | null;
  /** Bytes of the gzipped file. */
  size: number | null;
}

/** The gzipped export file in pieces, in `seq` order. */
export interface ExportChunksTable {
  idRequest: number;
  seq: number;
  data: Buffer;
}

/** A shipping method of the demo table (migration 0005), priced by zone; cents. */
export interface ShippingMethodsTable {
  idShippingMethod: number;
  name: string;
  isLetter: number;
  isInsured: number;
  /** Most articles the method carries; null: any number. */
  maxArticles: number | null;
  /** Highest article value (cents) the method may carry; null: any value. */
  maxArticleValue: number | null;
  priceDomestic: number;
  priceEurope: number;
  priceWorld: number;
}

/** The address a buyer's next checkout ships to (`PUT /shoppingcart/shippingaddress`). */
export interface CartShippingAddressesTable {
  idUser: number;
  name: string;
  extra: string | null;
  street: string;
  zip: string;
  city: string;
  country: string;
}

export interface OrderEvaluationsTable {
  idOrder: number;
  idSeller: number;
  evaluationGrade: number;
  itemDescription: number;
  packaging: number;
  speed: number;
  comment: string;
  /** JSON array of complaint codes. */
  complaints: string;
  createdAt: number;
}

/** Orders per user, role (1 seller, 2 buyer) and state, kept by the transitions. */
export interface OrderCountsTable {
  idUser: number;
  actor: number;
  state: OrderState;
  count: number;
}

/** Running sums behind a seller's avgShippingTime and reputation. */
export interface SellerStatsTable {
  idUser: number;
  shippedOrders: number;
  shippingTimeTotalMs: number;
  ratedEvaluations: number;
  evaluationGradeTotal: number;
  /** Sent orders that became `lost` (behind `lossPercentage`). */
  lostOrders: number;
}

/** Localized expansion names (1 EN … 5 IT); English is also `expansions.enName`. */
export interface ExpansionNamesTable {
  idExpansion: number;
  idLanguage: number;
  name: string;
}

/** The search index of product names (migration 0003): one folded name per product and language. */
export interface ProductSearchNamesTable {
  idProduct: number;
  idLanguage: number;
  idGame: number;
  /** Folded: lower case, accents removed, words joined by single spaces. */
  name: string;
}

/** Every folded word of every product name, for prefix searches. */
export interface ProductSearchWordsTable {
  idLanguage: number;
  word: string;
  idGame: number;
  idProduct: number;
}

/** Price guide values from an imported file (cents), the stand-ins where the marketplace has none. */
export interface ImportedPriceGuidesTable {
  idProduct: number;
  sell: number | null;
  low: number | null;
  trend: number | null;
  avg1: number | null;
  avg7: number | null;
  avg30: number | null;
  sellFoil: number | null;
  lowFoil: number | null;
  trendFoil: number | null;
  foilAvg1: number | null;
  foilAvg7: number | null;
  foilAvg30: number | null;
  importedAt: number;
}

/** A seller activation in progress (reference §1.2): the two transfers to the given bank account. */
export interface SellerActivationsTable {
  idUser: number;
  requestedAt: number;
  /** When the transfers arrive (the next marketplace day): `sellerActivation` 2 from then on. */
  transfersAt: number;
  /** The two amounts, in cents, that PUT /account/selleractivation must name. */
  transfer1: number;
  transfer2: number;
  /** Wrong answers so far; the activation starts over after MAX_ACTIVATION_ATTEMPTS. */
  failedAttempts: number;
}

/** Nonces of accepted requests, kept while their timestamp is inside the OAuth window. */
/** A request-limit counter shared by processes without Redis (src/limits/database-store.ts). */
export interface LimitCountersTable {
  key: string;
  count: number;
  /** Epoch ms (real time) after which the counter no longer counts. */
  expiresAt: number;
}

/** A concurrency place taken by a request, shared by processes without Redis. */
export interface LimitPlacesTable {
  key: string;
  token: string;
  expiresAt: number;
}

export interface OAuthNoncesTable {
  /** The request's `oauth_timestamp`, in seconds. */
  timestamp: number;
  /** `idApp:idAccessToken:nonce` (0 for a widget app's missing token). */
  nonceKey: string;
}

/**
 * How often each catalog table has changed (raised by triggers, `0011_catalog_versions`): the
 * download files are rebuilt when it moves. `productSearch` counts writes to the search index
 * (`0018_search_reads`): the products a search found are kept until it moves.
 */
export interface CatalogVersionsTable {
  name: 'products' | 'priceGuides' | 'productSearch' | 'productInfo';
  version: number;
}

/** The version of the messages between two users (`0023_message_pair_versions`), low id first. */
export interface MessagePairVersionsTable {
  idUserLow: number;
  idUserHigh: number;
  version: number;
}

/** A signed-in browser (the website): the cookie holds the random id, the row its SHA-256. */
export interface WebSessionsTable {
  sessionHash: string;
  idUser: number;
  createdAt: number;
  expiresAt: number;
}

/** A one-time password reset link (its token's SHA-256), valid for an hour. */
export interface PasswordResetsTable {
  tokenHash: string;
  idUser: number;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/**
 * A request token of the third-party authorization flow (reference §1.8): given to the app's
 * callback when a user approves, exchanged once for an access token by `POST /access`.
 */
export interface RequestTokensTable {
  tokenHash: string;
  idApp: number;
  idUser: number;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/** An injected fault (sandbox, `cardbazaar faults add`): see src/domain/faults.ts. */
export interface FaultsTable {
  idFault: Generated<number>;
  method: string | null;
  path: string;
  status: number | null;
  description: string | null;
  rate: number;
  latencyMs: number;
  drop: number;
  seed: number | null;
  createdAt: number;
  /** The "next N matching requests" asked for; null: no count. */
  times: number | null;
  /** How many of those N are left (counted down in SQL, shared by every process); null: no count. */
  remaining: number | null;
  /** The consumer key the fault is narrowed to, as given, and its app. */
  app: string | null;
  idApp: number | null;
  /** The username the fault is narrowed to, as given, and its user. */
  user: string | null;
  idUser: number | null;
  /** 'truncated' or 'malformed': what happens to the answer's body. */
  body: string | null;
  /** Marketplace-clock epoch ms after which the fault no longer applies; null: never. */
  expiresAt: number | null;
}

/**
 * One API request as the request log keeps it (docs/testing-your-client.md, "The request log"). Never a secret or a
 * signature: `authorization` and `query` are stored without `oauth_signature`. The failure columns
 * (`origin` … `baseString`) are filled only for answers of 400 and above.
 */
export interface RequestLogTable {
  idRequest: Generated<number>;
  idUser: number;
  idApp: number | null;
  /** Real time (epoch ms) the request arrived. */
  time: number;
  method: string;
  /** The raw path as sent (with any `output.json` segment). */
  path: string;
  /** The raw query without `?` and without `oauth_signature`. */
  query: string;
  status: number;
  durationMicros: number;
  internalErrorCode: string | null;
  /** `scheme://host[:port]` as the signature check saw it (failures only). */
  origin: string | null;
  authorization: string | null;
  /** The first 4 KB of the bodies (failures only). */
  requestBody: string | null;
  responseBody: string | null;
  /** Sandbox only: the base string the server computed for a bad signature. */
  baseString: string | null;
  /**
   * Sandbox only: the live host (`https://apiv2.cardmarket.com`, LIVE_HOSTS) the signature verified
   * over; null when it verified over the server's own URL (or did not verify).
   */
  signedOver: string | null;
}

/** A public event one user receives (docs/api.md, "Events and webhooks"). */
export interface UserEventsTable {
  idEvent: Generated<number>;
  idUser: number;
  type: string;
  createdAt: number;
  /** The event's data as JSON, money kept as cents (`src/mappers/event.ts`). */
  payload: string;
}

export interface WebhookEndpointsTable {
  idEndpoint: Generated<number>;
  idApp: number;
  url: string;
  kinds: string;
  enabled: number;
  salt: string;
  createdAt: number;
  failingSince: number | null;
  disabledAt: number | null;
  /** 1: a pending delivery holds back the endpoint's later ones (strict order). */
  strictOrder: Generated<number>;
}

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  idDelivery: Generated<number>;
  idEndpoint: number;
  idEvent: number;
  state: WebhookDeliveryState;
  attempts: number;
  createdAt: number;
  nextAttemptAt: number;
  leaseUntil: number | null;
  leaseToken: string | null;
  finishedAt: number | null;
}

export interface WebhookAttemptsTable {
  idAttempt: Generated<number>;
  idDelivery: number;
  idEndpoint: number;
  at: number;
  status: number | null;
  durationMs: number;
  response: string;
}

/** A simulated trader of the living market (migration 0033): an ordinary user the market acts for. */
export interface MarketTradersTable {
  idUser: number;
  name: string;
  kind: string;
  idApp: number;
  scenario: string;
  createdAt: number;
}

/** One simulated action: who, what, why, and where in the trader's random stream it was drawn. */
export interface MarketActionsTable {
  idAction: Generated<number>;
  seed: string;
  day: number;
  step: number;
  idUser: number | null;
  trader: string;
  action: string;
  reason: string;
  seedPosition: number;
  /** `ok`, or the refusal's message when the marketplace said no. */
  outcome: string;
  /** JSON. */
  detail: string;
  createdAt: number;
}

/** A product's hidden fair value (cents) and the value it reverts to, as the market last left them. */
export interface MarketValuesTable {
  idProduct: number;
  fairValue: number;
  anchor: number;
  updatedAt: number;
}

export interface DB {
  users: UsersTable;
  apps: AppsTable;
  accessTokens: AccessTokensTable;
  coupons: CouponsTable;
  settings: SettingsTable;
  events: EventsTable;
  games: GamesTable;
  expansions: ExpansionsTable;
  metaproducts: MetaproductsTable;
  products: ProductsTable;
  productNames: ProductNamesTable;
  articles: ArticlesTable;
  priceGuides: PriceGuidesTable;
  reservations: ReservationsTable;
  reservationArticles: ReservationArticlesTable;
  orders: OrdersTable;
  orderArticles: OrderArticlesTable;
  messages: MessagesTable;
  systemAccounts: SystemAccountsTable;
  wantslists: WantslistsTable;
  wants: WantsTable;
  exports: ExportsTable;
  exportChunks: ExportChunksTable;
  shippingMethods: ShippingMethodsTable;
  cartShippingAddresses: CartShippingAddressesTable;
  orderEvaluations: OrderEvaluationsTable;
  orderCounts: OrderCountsTable;
  sellerStats: SellerStatsTable;
  webSessions: WebSessionsTable;
  passwordResets: PasswordResetsTable;
  requestTokens: RequestTokensTable;
  expansionNames: ExpansionNamesTable;
  productSearchNames: ProductSearchNamesTable;
  productSearchWords: ProductSearchWordsTable;
  importedPriceGuides: ImportedPriceGuidesTable;
  oauthNonces: OAuthNoncesTable;
  limitCounters: LimitCountersTable;
  marketTraders: MarketTradersTable;
  marketActions: MarketActionsTable;
  marketValues: MarketValuesTable;
  limitPlaces: LimitPlacesTable;
  sellerActivations: SellerActivationsTable;
  catalogVersions: CatalogVersionsTable;
  messagePairVersions: MessagePairVersionsTable;
  faults: FaultsTable;
  requestLog: RequestLogTable;
  userEvents: UserEventsTable;
  webhookEndpoints: WebhookEndpointsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookAttempts: WebhookAttemptsTable;
}

export type User = Selectable<UsersTable>;
export type SellerActivationRow = Selectable<SellerActivationsTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type App = Selectable<AppsTable>;
export type AccessToken = Selectable<AccessTokensTable>;
export type Article = Selectable<ArticlesTable>;
export type Fault = Selectable<FaultsTable>;
export type NewArticle = Insertable<ArticlesTable>;
export type Product = Selectable<ProductsTable>;
export type Order = Selectable<OrdersTable>;
export type OrderArticle = Selectable<OrderArticlesTable>;
export type Reservation = Selectable<ReservationsTable>;
export type PriceGuide = Selectable<PriceGuidesTable>;
export type Message = Selectable<MessagesTable>;
export type Wantslist = Selectable<WantslistsTable>;
export type Want = Selectable<WantsTable>;
export type Export = Selectable<ExportsTable>;
export type NewOrder = Insertable<OrdersTable>;
export type ShippingMethod = Selectable<ShippingMethodsTable>;
export type OrderEvaluation = Selectable<OrderEvaluationsTable>;
export type UserEvent = Selectable<UserEventsTable>;
export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type WebhookAttempt = Selectable<WebhookAttemptsTable>;
