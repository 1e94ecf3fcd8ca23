import { createApp } from '../../auth/apps.js';
import type { Config } from '../../config.js';
import { ApiError, forbidden } from '../../errors.js';
import {
  catalogSlice,
  guideStart,
  insertActions,
  insertTrader,
  isEvaluated,
  isMarketTrader,
  marketTraders,
  putMarketValues,
  storedMarketValues,
  traderOrders,
  userBalance,
} from '../../store/market.js';
import type { MarketActionsTable, Order } from '../../store/schema.js';
import { getSetting, putSetting } from '../../store/settings.js';
import { findUserByUsernameAnyCase } from '../../store/users.js';
import { setVacation } from '../account.js';
import { changeCart, sweepExpiredReservations } from '../cart.js';
import { checkout } from '../checkout.js';
import { evaluateOrder } from '../evaluations.js';
import type { EventDispatcher } from '../events.js';
import type { RequestLogRecorder } from '../request-log.js';
import { sendMessage } from '../messages.js';
import { productOffers } from '../offers.js';
import { actOnOrder, type OrderActionInput } from '../orders.js';
import { payOwnOrder } from '../payments.js';
import { refreshPriceGuide } from '../priceguide.js';
import { addArticles, updateArticles } from '../stock.js';
import { listStockOfProduct } from '../stock-queries.js';
import type { DomainContext } from '../context.js';
import type { TradingContext } from '../trading.js';
import { createUser, fundUser } from '../users.js';
import { createWantslists, getWantslist, listWantslists, offersForWant, updateWantslist } from '../wants.js';
import type { Scenario, TraderKind, TraderSpec } from './scenario.js';
import { Stream } from './stream.js';

/**
 * The living market (issue 34; docs/testing-your-client.md, "A living market"). Simulated traders
 * are ordinary users with ordinary apps: every action they take is a call of the same domain
 * function an API request makes, in its own transaction, on the marketplace clock, so it raises
 * the same events a person's would. Nothing in the marketplace tells a trader from a person.
 *
 * Behaviour sits apart from value: each product has a hidden fair value (a mean-reverting walk of
 * its logarithm, with the scenario's scheduled shocks), and traders price and buy around it with
 * their own spreads. One master seed derives every trader's stream, the value process's and the
 * order traders act in within a step, and the market moves the clock itself step by step: the same
 * seed, scenario and starting database give the same marketplace events, byte for byte.
 */

const DAY = 86_400_000;

/** What the market needs: the marketplace's context, the app issuer's key and the outbox. */
export interface MarketContext extends TradingContext {
  config: TradingContext['config'] & Pick<Config, 'mode'>;
  serverKey: string;
  /** The outbox, delivered after each step; a fixture's market leaves it to the server. */
  events: Pick<EventDispatcher, 'deliverPending'>;
  /** Where the traders' actions show as their apps' requests (off when REQUEST_LOG_ROWS is 0). */
  requestLog?: Pick<RequestLogRecorder, 'add'>;
}

/** A clock the market moves: the marketplace time of each step. */
export interface SettableClock {
  now(): number;
  set(ms: number): void | Promise<void>;
}

/** The settings key holding the market's state (`market status`, pause/resume/stop). */
export const MARKET_STATE_SETTING = 'marketState';

export interface MarketState {
  status: 'running' | 'paused' | 'stopped' | 'finished';
  scenario: string;
  seed: string;
  /** Marketplace days completed in this run, and asked for. */
  day: number;
  days: number;
  startedAt: number;
  updatedAt: number;
  actions: number;
}

export async function readMarketState(ctx: DomainContext): Promise<MarketState | null> {
  const text = await getSetting(ctx.database.db, MARKET_STATE_SETTING);
  return text ? (JSON.parse(text) as MarketState) : null;
}

async function writeMarketState(ctx: DomainContext, state: MarketState): Promise<void> {
  await putSetting(ctx.database.db, MARKET_STATE_SETTING, JSON.stringify(state));
}

/** Sets the state's status (pause, resume, stop from the CLI); a running market reads it each step. */
export async function setMarketStatus(
  ctx: TradingContext,
  status: MarketState['status'],
): Promise<MarketState> {
  const state = await readMarketState(ctx);
  if (!state) throw new ApiError(404, 'No market has run on this database yet.');
  const next = { ...state, status };
  await writeMarketState(ctx, next);
  return next;
}

/** Refuses the market outside the sandbox. */
export function assertSandbox(ctx: Pick<MarketContext, 'config'>): void {
  if (ctx.config.mode === 'production')
    throw forbidden('The living market is a sandbox tool: it does not run in production.', {
      code: 'market_production',
    });
}

interface Product {
  idProduct: number;
  enName: string;
  idGame: number;
  isSingle: boolean;
  /** Log of the fair value (cents) and of the anchor it reverts to. */
  logValue: number;
  logAnchor: number;
  noRestockUntil: number;
}

interface Trader {
  idUser: number;
  idApp: number;
  name: string;
  kind: TraderKind;
  spec: TraderSpec;
  stream: Stream;
  products: Product[];
  idWantslists: number[];
  vacationUntil: number;
}

export type LoggedAction = Omit<MarketActionsTable, 'idAction'>;

export interface MarketRunOptions {
  scenario: Scenario;
  seed: string;
  days: number;
  /** Called after each marketplace day with the day's number (1-based) and its actions. */
  onDay?: (day: number, actions: LoggedAction[]) => void;
  /** Read before each step: a paused market waits, a stopped one ends (the server's market). */
  control?: () => Promise<'run' | 'pause' | 'stop'>;
  /** Waits between steps (the server's `--speed`); none in `market run`. */
  pace?: (stepMs: number) => Promise<void>;
  /**
   * Awaited before each trader's turn and each action (the server's market: one macrotask, so a
   * request waits for one action at most, never a whole step); none in `market run`.
   */
  between?: () => Promise<void>;
  /** Keeps other outbox passes off during a step (released before the step's own delivery). */
  holdDeliveries?: () => () => void;
}

export interface MarketRunSummary {
  seed: string;
  scenario: string;
  days: number;
  traders: number;
  products: number;
  actions: number;
  start: number;
  end: number;
}

const SELLER_KINDS: TraderKind[] = ['house', 'undercutter', 'slowShipper', 'vacationer'];
const BUYER_KINDS: TraderKind[] = ['house', 'collector', 'bulkBuyer', 'canceller'];

export class Market {
  private readonly valueStream: Stream;
  private readonly orderStream: Stream;
  private products: Product[] = [];
  private traders: Trader[] = [];
  private log: LoggedAction[] = [];
  private day = 0;
  private step = 0;
  private actionCount = 0;
  private between: (() => Promise<void>) | undefined;

  constructor(
    private readonly ctx: MarketContext,
    private readonly clock: SettableClock,
    private readonly scenario: Scenario,
    private readonly seed: string,
  ) {
    this.valueStream = new Stream(seed, 'value');
    this.orderStream = new Stream(seed, 'order');
  }

  // -------------------------------------------------------------------------------------------
  // The log

  private record(
    trader: Trader | null,
    action: string,
    reason: string,
    outcome: string,
    detail: Record<string, unknown> = {},
  ): void {
    this.log.push({
      seed: this.seed,
      day: this.day,
      step: this.step,
      idUser: trader?.idUser ?? null,
      trader: trader?.name ?? 'market',
      action,
      reason,
      seedPosition: trader ? trader.stream.position : this.valueStream.position,
      outcome,
      detail: JSON.stringify(detail),
      createdAt: this.clock.now(),
    });
  }

  /**
   * Runs one marketplace action for a trader; a refusal (the marketplace said no: sold out,
   * someone else was quicker, the state moved on) is logged as the outcome, as a client would see it.
   */
  private async attempt<T>(
    trader: Trader,
    action: string,
    reason: string,
    detail: Record<string, unknown>,
    fn: () => Promise<T>,
  ): Promise<T | undefined> {
    if (this.between) await this.between();
    const started = performance.now();
    try {
      const result = await fn();
      this.record(trader, action, reason, 'ok', detail);
      this.logRequest(trader, action, detail, 200, null, started);
      return result;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.record(trader, action, reason, err.message, detail);
      this.logRequest(trader, action, detail, err.status, err.code ?? null, started);
      return undefined;
    }
  }

  /**
   * The request log shows a trader's actions as requests of its app: the API request each action
   * stands for (paying, which the API has no request for, and top-ups are not requests).
   */
  private logRequest(
    trader: Trader,
    action: string,
    detail: Record<string, unknown>,
    status: number,
    code: string | null,
    started: number,
  ): void {
    const requestLog = this.ctx.requestLog;
    if (!requestLog) return;
    const order = `/ws/v2.0/order/${String(detail.idOrder)}`;
    const call: Record<string, [string, string, string?]> = {
      list: ['POST', '/ws/v2.0/stock'],
      reprice: ['PUT', '/ws/v2.0/stock'],
      addToCart: ['PUT', '/ws/v2.0/shoppingcart'],
      checkout: ['PUT', '/ws/v2.0/shoppingcart/checkout'],
      send: ['PUT', order],
      confirmReception: ['PUT', order],
      requestCancellation: ['PUT', order],
      acceptCancellation: ['PUT', order],
      evaluate: ['POST', `${order}/evaluation`],
      message: ['POST', `/ws/v2.0/account/messages/${String(detail.to)}`],
      vacation: ['PUT', '/ws/v2.0/account/vacation', 'onVacation=true'],
      return: ['PUT', '/ws/v2.0/account/vacation', 'onVacation=false'],
      createWantslist: ['POST', '/ws/v2.0/wantslist'],
      addWants: ['PUT', `/ws/v2.0/wantslist/${String(detail.idWantslist)}`],
    };
    const request = call[action];
    if (!request) return;
    requestLog.add({
      idUser: trader.idUser,
      idApp: trader.idApp,
      // The request log keeps real time (when a request arrived), as for every client.
      time: Date.now(),
      method: request[0],
      path: request[1],
      query: request[2] ?? '',
      status,
      durationMicros: Math.round((performance.now() - started) * 1000),
      internalErrorCode: code,
      origin: null,
      authorization: null,
      requestBody: null,
      responseBody: null,
      baseString: null,
      signedOver: null,
    });
  }

  private async flush(): Promise<LoggedAction[]> {
    const rows = this.log;
    this.log = [];
    await insertActions(this.ctx.database.db, rows);
    this.actionCount += rows.length;
    return rows;
  }

  // -------------------------------------------------------------------------------------------
  // Setup

  private fair(p: Product): number {
    return Math.max(2, Math.round(Math.exp(p.logValue)));
  }

  private async setupProducts(): Promise<void> {
    const { products: slice } = this.scenario;
    const rows = await catalogSlice(this.ctx.database.db, slice);
    if (rows.length === 0)
      throw new ApiError(
        412,
        'The catalog has no products for this scenario: load the demo data (`cardbazaar seed`) or import a catalog first.',
      );
    const guides = await guideStart(
      this.ctx.database.db,
      rows.map((r) => r.idProduct),
    );
    const stored = new Map((await storedMarketValues(this.ctx.database.db)).map((v) => [v.idProduct, v]));
    const { defaultMin, defaultMax } = this.scenario.value;
    this.products = rows.map((r) => {
      // Every product draws its default from the value stream, used or not: the stream's position
      // after setup depends on the slice alone, not on which products have a guide.
      const drawn = Math.round(defaultMin * Math.pow(defaultMax / defaultMin, this.valueStream.next()));
      const known = stored.get(r.idProduct);
      const start = known?.fairValue ?? guides.get(r.idProduct) ?? drawn;
      const anchor = known?.anchor ?? start;
      return {
        idProduct: r.idProduct,
        enName: r.enName,
        idGame: r.idGame,
        isSingle: r.isSingle === 1,
        logValue: Math.log(start),
        logAnchor: Math.log(anchor),
        noRestockUntil: -1,
      };
    });
  }

  private async setupTraders(): Promise<void> {
    const db = this.ctx.database.db;
    const known = new Map((await marketTraders(db)).map((t) => [t.name, t]));
    for (const spec of this.scenario.traders) {
      for (let i = 1; i <= spec.count; i++) {
        if (this.between) await this.between();
        const name = `${this.scenario.name}-${spec.kind}-${i}`;
        const stream = new Stream(this.seed, name);
        let idUser: number;
        let idApp: number;
        const existing = known.get(name);
        if (existing) {
          idUser = existing.idUser;
          idApp = existing.idApp;
        } else {
          const taken = await findUserByUsernameAnyCase(db, name);
          if (taken && !(await isMarketTrader(db, taken.idUser)))
            throw new ApiError(
              409,
              `The username "${name}" belongs to a real user: the market never acts for one. Rename the scenario.`,
            );
          const user = await createUser(this.ctx, {
            username: name,
            country: 'D',
            accountType: spec.kind === 'house' ? 'professional' : 'private',
            firstName: 'Market',
            lastName: `${spec.kind} ${i}`,
            street: `Marktplatz ${i}`,
            zip: '10115',
            city: 'Berlin',
            email: `${name}@market.cardbazaar.test`,
          });
          idUser = user.idUser;
          // A real app per trader: its actions are those of an ordinary client of its own.
          const issued = await createApp(this.ctx, { idUser, kind: 'dedicated', name: `${name} (market)` });
          idApp = issued.app.idApp;
          await insertTrader(db, {
            idUser,
            name,
            kind: spec.kind,
            idApp: issued.app.idApp,
            scenario: this.scenario.name,
            createdAt: this.clock.now(),
          });
        }
        const trader: Trader = {
          idUser,
          idApp,
          name,
          kind: spec.kind,
          spec,
          stream,
          products: [],
          idWantslists: [],
          vacationUntil: -1,
        };
        trader.products =
          spec.kind === 'house' ? [...this.products] : stream.sample(this.products, spec.products);
        this.traders.push(trader);
        const balance = await userBalance(db, idUser);
        if (balance < spec.budget) {
          const cents = spec.budget - balance;
          await fundUser(this.ctx, idUser, cents);
          this.record(trader, 'fund', 'starting budget', 'ok', { cents });
        }
        if (spec.kind === 'collector') await this.setupWants(trader);
      }
    }
  }

  private async setupWants(t: Trader): Promise<void> {
    // The lists an earlier run made, as the trader's own GET /wantslist shows them.
    const existing = (await listWantslists(this.ctx, t.idUser))
      .map((w) => w.idWantslist)
      .sort((a, b) => a - b);
    if (existing.length > 0) {
      t.idWantslists = existing;
      return;
    }
    const games = [...new Set(t.products.map((p) => p.idGame))].sort((a, b) => a - b);
    for (const idGame of games) {
      const created = await this.attempt(
        t,
        'createWantslist',
        'a collector keeps a wants list',
        { idGame },
        () => createWantslists(this.ctx, t.idUser, [{ idGame: String(idGame), name: `Wants ${idGame}` }]),
      );
      const list = created?.created[0];
      if (!list) continue;
      t.idWantslists.push(list.idWantslist);
      const items = t.products
        .filter((p) => p.idGame === idGame)
        .map((p) => ({
          label: `product ${p.idProduct}`,
          target: { type: 'product' as const, idProduct: p.idProduct },
          count: 4,
          mailAlert: false,
          languages: [],
          flags: {},
        }));
      await this.attempt(
        t,
        'addWants',
        'the products this collector is after',
        { idWantslist: list.idWantslist, idProducts: items.map((i) => i.target.idProduct) },
        () => updateWantslist(this.ctx, t.idUser, list.idWantslist, { action: 'addItem', items }),
      );
    }
  }

  // -------------------------------------------------------------------------------------------
  // The value process

  private evolveValues(): void {
    const { meanReversion, volatility } = this.scenario.value;
    const dt = 1 / this.scenario.stepsPerDay;
    for (const p of this.products) {
      p.logValue +=
        meanReversion * (p.logAnchor - p.logValue) * dt +
        volatility * Math.sqrt(dt) * this.valueStream.normal();
    }
  }

  private shockTargets(product: number | 'all'): Product[] {
    if (product === 'all') return this.products;
    const p = this.products[product];
    return p ? [p] : [];
  }

  private async applyShocks(): Promise<void> {
    for (const shock of this.scenario.shocks) {
      if (shock.day !== this.day) continue;
      if (shock.type === 'value') {
        for (const p of this.shockTargets(shock.product)) {
          const before = this.fair(p);
          p.logValue += Math.log(shock.factor);
          // A permanent shock (a ban, a reprint) moves what the value reverts to; a transient one
          // (a tournament spike) is corrected by the mean reversion.
          if (shock.permanent) p.logAnchor += Math.log(shock.factor);
          this.record(
            null,
            'shock',
            shock.permanent ? 'scheduled lasting value change' : 'scheduled spike',
            'ok',
            {
              idProduct: p.idProduct,
              factor: shock.factor,
              before,
              after: this.fair(p),
            },
          );
        }
      } else if (shock.type === 'noRestock') {
        for (const p of this.shockTargets(shock.product)) {
          p.noRestockUntil = this.day + shock.days;
          this.record(null, 'shock', 'scheduled shortage: house sellers stop restocking', 'ok', {
            idProduct: p.idProduct,
            days: shock.days,
          });
        }
      } else {
        for (const t of this.traders) {
          if (t.name !== shock.trader && t.kind !== shock.trader) continue;
          if (t.vacationUntil > this.day) continue;
          await this.goOnVacation(t, shock.days, 'scheduled vacation');
        }
      }
    }
  }

  private async goOnVacation(t: Trader, days: number, reason: string): Promise<void> {
    const done = await this.attempt(t, 'vacation', reason, { days }, () =>
      setVacation(this.ctx, t.idUser, true, false, false),
    );
    if (done) t.vacationUntil = this.day + days;
  }

  // -------------------------------------------------------------------------------------------
  // What traders see: their orders, the offers of a product, their stock

  private orders(t: Trader, role: 'buyer' | 'seller', states: Order['state'][]): Promise<Order[]> {
    return traderOrders(this.ctx.database.db, t.idUser, role, states);
  }

  /** The cheapest offers of a product from others (sellers on vacation are not offered). */
  private async offersOf(t: Trader, p: Product, limit = 10) {
    const page = await productOffers(this.ctx, p.idProduct, {}, { offset: 0, limit }, t.idUser);
    return page.articles.filter((a) => a.idUser !== t.idUser);
  }

  private async ownStock(t: Trader, p: Product) {
    return (await listStockOfProduct(this.ctx, t.idUser, p.idProduct, 0, 10)).articles;
  }

  /** What a buyer can still spend: its balance less what its unpaid orders will take. */
  private async spendable(t: Trader): Promise<number> {
    const unpaid = (await this.orders(t, 'buyer', ['bought'])).reduce((n, o) => n + o.totalValue, 0);
    return (await userBalance(this.ctx.database.db, t.idUser)) - unpaid;
  }

  // -------------------------------------------------------------------------------------------
  // Acting

  private async buy(
    t: Trader,
    items: Array<{ idArticle: number; count: number; price: number; idProduct: number }>,
    reason: string,
  ): Promise<void> {
    if (items.length === 0) return;
    // Shipping is added at checkout: keep a margin for it.
    const cost = items.reduce((n, i) => n + i.price * i.count, 0) + 500 * items.length;
    if ((await this.spendable(t)) < cost) {
      this.record(t, 'skipBuy', reason, 'not enough money', { cost });
      return;
    }
    const added = await this.attempt(t, 'addToCart', reason, { items }, () =>
      changeCart(
        this.ctx,
        t.idUser,
        'add',
        items.map((i) => ({ idArticle: i.idArticle, count: i.count })),
      ),
    );
    if (!added || added.cart.reservations.length === 0) return;
    await this.attempt(t, 'checkout', reason, {}, () => checkout(this.ctx, t.idUser));
  }

  private async orderAction(t: Trader, o: Order, input: OrderActionInput, reason: string): Promise<boolean> {
    const done = await this.attempt(t, input.action, reason, { idOrder: o.idOrder }, () =>
      actOnOrder(this.ctx, t.idUser, o.idOrder, input),
    );
    return done !== undefined;
  }

  /** What every seller does when it acts: ship what is due, answer cancellation requests. */
  private async sellerDuties(t: Trader): Promise<void> {
    const now = this.clock.now();
    for (const o of await this.orders(t, 'seller', ['bought', 'paid'])) {
      if (o.cancellationRequestBuyer) {
        await this.orderAction(
          t,
          o,
          { action: 'acceptCancellation', relist: true },
          'the buyer asked to cancel',
        );
        continue;
      }
      if (o.state !== 'paid' || o.datePaid === null) continue;
      const waited = now - o.datePaid;
      if (waited < t.spec.shipDelayDays * DAY) continue;
      if (t.kind === 'slowShipper' && waited > 2 * DAY)
        await this.attempt(
          t,
          'message',
          'apologising for shipping late',
          { idOrder: o.idOrder, to: o.idBuyer },
          () =>
            sendMessage(
              this.ctx,
              t.idUser,
              o.idBuyer,
              `Sorry for the wait: order ${o.idOrder} is on its way now.`,
            ),
        );
      await this.orderAction(
        t,
        o,
        { action: 'send', trackingNumber: `MKT${o.idOrder}` },
        `paid ${Math.round(waited / 3_600_000)} h ago`,
      );
    }
  }

  /** What every buyer does when it acts: pay, confirm what arrived, evaluate it. */
  private async buyerDuties(t: Trader): Promise<void> {
    const now = this.clock.now();
    for (const o of await this.orders(t, 'buyer', ['bought'])) {
      if (o.cancellationRequestBuyer) continue;
      if ((await userBalance(this.ctx.database.db, t.idUser)) < o.totalValue) continue;
      await this.attempt(t, 'pay', 'paying a bought order', { idOrder: o.idOrder, cents: o.totalValue }, () =>
        payOwnOrder(this.ctx, t.idUser, o.idOrder),
      );
    }
    for (const o of await this.orders(t, 'buyer', ['sent'])) {
      // Post takes one to three days.
      if (o.dateSent === null || now - o.dateSent < t.stream.int(1, 3) * DAY) continue;
      await this.orderAction(t, o, { action: 'confirmReception' }, 'the parcel arrived');
    }
    for (const o of await this.orders(t, 'buyer', ['received'])) {
      if (await isEvaluated(this.ctx.database.db, o.idOrder)) continue;
      const late = o.dateSent !== null && o.datePaid !== null && o.dateSent - o.datePaid > 3 * DAY;
      await this.attempt(
        t,
        'evaluate',
        late ? 'rating a late shipment' : 'rating a received order',
        { idOrder: o.idOrder },
        () =>
          evaluateOrder(this.ctx, t.idUser, o.idOrder, {
            evaluationGrade: late ? 3 : t.stream.int(1, 2),
            itemDescription: 1,
            packaging: t.stream.int(1, 2),
            speed: late ? 3 : 1,
            comment: late ? 'Arrived, but slowly.' : 'Thanks!',
            complaint: [],
          }),
      );
    }
  }

  /** Keeps one offer of `p` listed at `target` (cents), restocking when sold out. */
  private async keepListed(t: Trader, p: Product, target: number, reason: string): Promise<void> {
    const own = (await this.ownStock(t, p)).filter((a) => a.view.count > 0);
    if (own.length === 0) {
      if (t.kind === 'house' && p.noRestockUntil > this.day) return;
      const count = t.stream.int(1, t.spec.restock);
      await this.attempt(
        t,
        'list',
        `restocking: ${reason}`,
        { idProduct: p.idProduct, count, price: target },
        () =>
          addArticles(this.ctx, t.idUser, [
            {
              tried: null,
              input: {
                idProduct: p.idProduct,
                count,
                price: target,
                idLanguage: 1,
                ...(p.isSingle ? { condition: 'NM' } : {}),
                flags: {},
              },
            },
          ]),
      );
      return;
    }
    const a = own[0]!;
    if (a.view.price === target) return;
    await this.reprice(t, a.view.idArticle, a.view.count, a.view.price, target, reason);
  }

  private async reprice(
    t: Trader,
    idArticle: number,
    count: number,
    from: number,
    to: number,
    reason: string,
  ): Promise<void> {
    await this.attempt(t, 'reprice', reason, { idArticle, from, to }, () =>
      updateArticles(this.ctx, t.idUser, [
        { tried: null, input: { idArticle, count, price: to, flags: {} } },
      ]),
    );
  }

  private async house(t: Trader): Promise<void> {
    // A market maker watches a few products each time, not all: the work per step stays small.
    for (const p of t.stream.sample(t.products, 4)) {
      const fair = this.fair(p);
      const ask = Math.max(2, Math.round(fair * (1 + t.spec.spread)));
      const own = (await this.ownStock(t, p)).filter((a) => a.view.count > 0);
      // Reprice only when the ask has moved by more than 3 %: a market maker does not chase noise.
      if (own.length === 0 || Math.abs(own[0]!.view.price - ask) > ask * 0.03)
        await this.keepListed(t, p, ask, `ask ${t.spec.spread * 100} % over the fair value`);
      // The bid: an offer well under the fair value is bought.
      const bid = Math.round(fair * (1 - t.spec.spread));
      const cheapest = (await this.offersOf(t, p, 1))[0];
      if (cheapest && cheapest.price <= bid)
        await this.buy(
          t,
          [{ idArticle: cheapest.idArticle, count: 1, price: cheapest.price, idProduct: p.idProduct }],
          `bid: offer at ${cheapest.price} under the bid ${bid}`,
        );
    }
  }

  private async undercutter(t: Trader): Promise<void> {
    for (const p of t.products) {
      const fair = this.fair(p);
      const floor = Math.max(2, Math.round(fair * (1 - t.spec.floor)));
      const own = (await this.ownStock(t, p)).filter((a) => a.view.count > 0);
      const competitor = (await this.offersOf(t, p, 1))[0];
      if (own.length === 0) {
        const start = competitor
          ? Math.max(floor, competitor.price - 1)
          : Math.round(fair * (1 + t.spec.spread));
        await this.keepListed(
          t,
          p,
          start,
          competitor ? 'listing under the cheapest offer' : 'listing over the fair value',
        );
        continue;
      }
      const mine = own[0]!.view;
      if (!competitor) {
        const ask = Math.round(fair * (1 + t.spec.spread));
        if (mine.price < ask)
          await this.reprice(
            t,
            mine.idArticle,
            mine.count,
            mine.price,
            ask,
            'no competitor left: back over the fair value',
          );
        continue;
      }
      const target = Math.max(floor, competitor.price - 1);
      if (mine.price > competitor.price - 1 && target < mine.price)
        await this.reprice(
          t,
          mine.idArticle,
          mine.count,
          mine.price,
          target,
          `undercut by an offer at ${competitor.price}`,
        );
      else if (mine.price < competitor.price - 1 - Math.round(fair * 0.02))
        await this.reprice(
          t,
          mine.idArticle,
          mine.count,
          mine.price,
          competitor.price - 1,
          `room under the next offer at ${competitor.price}`,
        );
    }
  }

  private async plainSeller(t: Trader): Promise<void> {
    for (const p of t.products) {
      const ask = Math.max(2, Math.round(this.fair(p) * (1 + t.spec.spread)));
      const own = (await this.ownStock(t, p)).filter((a) => a.view.count > 0);
      if (own.length === 0 || Math.abs(own[0]!.view.price - ask) > ask * 0.05)
        await this.keepListed(t, p, ask, 'following the fair value');
    }
  }

  private async collector(t: Trader): Promise<void> {
    if (t.idWantslists.length === 0) return;
    const idWantslist = t.stream.pick(t.idWantslists);
    const detail = await getWantslist(this.ctx, t.idUser, idWantslist);
    if (detail.items.length === 0) return;
    const item = t.stream.pick(detail.items);
    const p = this.products.find((x) => x.idProduct === item.want.idProduct);
    if (!p) return;
    const limit = Math.round(this.fair(p) * (1 + t.spec.spread));
    const found = await offersForWant(this.ctx, t.idUser, idWantslist, item.want.idWant, {
      offset: 0,
      limit: 5,
    });
    const offer = found.offers.find((o) => o.idUser !== t.idUser);
    if (!offer || offer.price > limit) {
      this.record(t, 'wait', 'no offer of a wanted product within the limit', 'ok', {
        idProduct: p.idProduct,
        limit,
      });
      return;
    }
    await this.buy(
      t,
      [{ idArticle: offer.idArticle, count: 1, price: offer.price, idProduct: p.idProduct }],
      `filling a want: ${offer.price} within ${limit}`,
    );
  }

  private async bulkBuyer(t: Trader): Promise<void> {
    const items: Array<{ idArticle: number; count: number; price: number; idProduct: number }> = [];
    for (const p of t.stream.sample(this.products, t.spec.products)) {
      const limit = Math.round(this.fair(p) * (1 + t.spec.spread));
      for (const o of await this.offersOf(t, p, 3)) {
        if (o.price > limit) break;
        items.push({
          idArticle: o.idArticle,
          count: Math.min(o.count, t.stream.int(1, 3)),
          price: o.price,
          idProduct: p.idProduct,
        });
      }
    }
    if (items.length === 0) {
      this.record(t, 'wait', 'nothing under the fair value', 'ok');
      return;
    }
    await this.buy(t, items, 'buying up offers under the fair value');
  }

  private async canceller(t: Trader): Promise<void> {
    for (const o of await this.orders(t, 'buyer', ['bought', 'paid'])) {
      if (o.cancellationRequestBuyer || !t.stream.chance(t.spec.chance)) continue;
      await this.attempt(
        t,
        'message',
        'telling the seller before cancelling',
        { idOrder: o.idOrder, to: o.idSeller },
        () => sendMessage(this.ctx, t.idUser, o.idSeller, `I have to cancel order ${o.idOrder}, sorry.`),
      );
      await this.orderAction(
        t,
        o,
        { action: 'requestCancellation', reason: 'Changed my mind' },
        'a buyer who cancels',
      );
      return;
    }
    const p = t.stream.pick(this.products);
    const offer = (await this.offersOf(t, p, 1))[0];
    if (offer && offer.price <= Math.round(this.fair(p) * 1.2))
      await this.buy(
        t,
        [{ idArticle: offer.idArticle, count: 1, price: offer.price, idProduct: p.idProduct }],
        'an impulse buy',
      );
  }

  private async act(t: Trader): Promise<void> {
    if (t.vacationUntil >= 0) {
      if (this.day < t.vacationUntil) {
        if (BUYER_KINDS.includes(t.kind)) await this.buyerDuties(t);
        return;
      }
      const back = await this.attempt(t, 'return', 'back from vacation', {}, () =>
        setVacation(this.ctx, t.idUser, false, false, false),
      );
      if (back) t.vacationUntil = -1;
    }
    if (SELLER_KINDS.includes(t.kind)) await this.sellerDuties(t);
    if (BUYER_KINDS.includes(t.kind)) await this.buyerDuties(t);
    switch (t.kind) {
      case 'house':
        return this.house(t);
      case 'undercutter':
        return this.undercutter(t);
      case 'slowShipper':
        return this.plainSeller(t);
      case 'vacationer':
        if (
          t.spec.chance > 0 &&
          this.step % this.scenario.stepsPerDay === 0 &&
          t.stream.chance(t.spec.chance)
        ) {
          await this.goOnVacation(t, t.stream.int(1, 3), 'taking a few days off');
          return;
        }
        return this.plainSeller(t);
      case 'collector':
        return this.collector(t);
      case 'bulkBuyer':
        return this.bulkBuyer(t);
      case 'canceller':
        return this.canceller(t);
    }
  }

  /** A buyer low on money is topped up at the day's end (money entering the marketplace, logged). */
  private async payday(): Promise<void> {
    for (const t of this.traders) {
      if (!BUYER_KINDS.includes(t.kind)) continue;
      if (this.between) await this.between();
      const balance = await userBalance(this.ctx.database.db, t.idUser);
      if (balance >= t.spec.budget / 2) continue;
      const cents = t.spec.budget - balance;
      await fundUser(this.ctx, t.idUser, cents);
      this.record(t, 'fund', 'payday: topped up to the budget', 'ok', { cents });
    }
  }

  private async saveValues(): Promise<void> {
    await putMarketValues(
      this.ctx.database.db,
      this.products.map((p) => ({
        idProduct: p.idProduct,
        fairValue: this.fair(p),
        anchor: Math.max(2, Math.round(Math.exp(p.logAnchor))),
        updatedAt: this.clock.now(),
      })),
    );
  }

  // -------------------------------------------------------------------------------------------
  // The run

  async run(options: Omit<MarketRunOptions, 'scenario' | 'seed'>): Promise<MarketRunSummary> {
    assertSandbox(this.ctx);
    const { days } = options;
    this.between = options.between;
    const stepMs = DAY / this.scenario.stepsPerDay;
    const start = this.clock.now();
    const state: MarketState = {
      status: 'running',
      scenario: this.scenario.name,
      seed: this.seed,
      day: 0,
      days,
      startedAt: start,
      updatedAt: start,
      actions: 0,
    };
    await writeMarketState(this.ctx, state);
    await this.setupProducts();
    await this.setupTraders();
    await this.saveValues();
    await this.flush();

    let stopped = false;
    for (this.day = 0; this.day < days && !stopped; this.day++) {
      const dayActions: LoggedAction[] = [];
      for (let s = 0; s < this.scenario.stepsPerDay; s++) {
        if (options.control) {
          let c = await options.control();
          while (c === 'pause') {
            await new Promise((r) => setTimeout(r, 200));
            c = await options.control();
          }
          if (c === 'stop') {
            stopped = true;
            break;
          }
        }
        this.step = this.day * this.scenario.stepsPerDay + s;
        const release = options.holdDeliveries?.();
        try {
          await this.clock.set(start + this.step * stepMs);
          if (s === 0) await this.applyShocks();
          this.evolveValues();
          await sweepExpiredReservations(this.ctx);
          for (const t of this.orderStream.shuffle(this.traders)) {
            if (!t.stream.chance(t.spec.activity)) continue;
            if (this.between) await this.between();
            await this.act(t);
          }
        } finally {
          release?.();
        }
        // The outbox is delivered at the end of each step, in this process, so what the handlers
        // do (price guides, user events, want alerts) happens at the same point of every run.
        await this.ctx.events.deliverPending();
        // The log is written at every step, not only at the day's end: a server's market at
        // --speed 60 makes a marketplace day last 24 minutes, and `market log --follow` shows it live.
        dayActions.push(...(await this.flush()));
        if (options.pace) await options.pace(stepMs);
      }
      if (stopped) break;
      // The marketplace day boundary: the whole price guide is recomputed from the day's sales.
      await this.clock.set(start + (this.day + 1) * DAY);
      await this.payday();
      await refreshPriceGuide(this.ctx);
      await this.ctx.events.deliverPending();
      await this.saveValues();
      dayActions.push(...(await this.flush()));
      options.onDay?.(this.day + 1, dayActions);
      // The status is the CLI's to change meanwhile (`market pause`): keep what it says now.
      const current = await readMarketState(this.ctx);
      await writeMarketState(this.ctx, {
        ...state,
        status: current?.status ?? state.status,
        day: this.day + 1,
        updatedAt: this.clock.now(),
        actions: this.actionCount,
      });
    }
    await this.flush();
    await writeMarketState(this.ctx, {
      ...state,
      status: stopped ? 'stopped' : 'finished',
      day: this.day,
      updatedAt: this.clock.now(),
      actions: this.actionCount,
    });
    return {
      seed: this.seed,
      scenario: this.scenario.name,
      days: this.day,
      traders: this.traders.length,
      products: this.products.length,
      actions: this.actionCount,
      start,
      end: this.clock.now(),
    };
  }
}

/** Runs a scenario for `days` marketplace days as fast as the database allows. */
export async function runMarket(
  ctx: MarketContext,
  clock: SettableClock,
  options: MarketRunOptions,
): Promise<MarketRunSummary> {
  assertSandbox(ctx);
  if (!Number.isInteger(options.days) || options.days < 1)
    throw new ApiError(400, '--days must be a positive whole number.');
  return new Market(ctx, clock, options.scenario, options.seed).run(options);
}

/** A fresh master seed when none is given: printed at start, so the run can be repeated. */
export function newSeed(): string {
  return String(Math.floor(Math.random() * 2 ** 31));
}
