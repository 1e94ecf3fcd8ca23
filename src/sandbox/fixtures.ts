import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createAccessToken, createApp, parseAppKind } from '../auth/apps.js';
import { ManualClock, OffsetClock } from '../clock.js';
import { hashPassword } from '../auth/passwords.js';
import { callbackUrlProblem } from '../auth/own-apps.js';
import { createCoupon, redeemCoupons } from '../domain/account.js';
import { changeCart, type CartItem } from '../domain/cart.js';
import type { ArticleFlag } from '../domain/catalog.js';
import { checkout } from '../domain/checkout.js';
import { evaluateOrder } from '../domain/evaluations.js';
import { loadScenario, runMarket, ScenarioError } from '../domain/market/index.js';
import { sendMessage } from '../domain/messages.js';
import { parsePriceCents } from '../domain/money.js';
import { actOnOrder, payOrder, settleLost } from '../domain/orders.js';
import { parseSellerActivationStart } from '../domain/seller-activation.js';
import { addArticles } from '../domain/stock.js';
import type { BulkItem, NewArticleInput } from '../domain/stock-rules.js';
import { createUser, parseAccountType } from '../domain/users.js';
import { createWantslists } from '../domain/wants.js';
import { ApiError } from '../errors.js';
import { formatCents } from '../format.js';
import { gameNamed } from '../importer/games.js';
import { importCatalogFiles } from '../importer/import.js';
import { productRecord, RecordError } from '../importer/records.js';
import type { Services } from '../services.js';
import { ensureGame, upsertProducts } from '../store/catalog-import.js';
import type { Database, Tx } from '../store/db.js';
import { findUserById, findUserByUsername, setPasswordHash } from '../store/users.js';
import { CLOCK_OFFSET } from '../store/faults.js';
import { putSetting } from '../store/settings.js';

/**
 * `cardbazaar fixtures run FILE`: builds the world a client's test needs from a JSON or YAML file,
 * step by step, through the same domain functions the API and the website call (so an order in
 * `sent` got there by being paid and sent, and every rule applies). Later steps refer to earlier
 * results with `${name.field}`. The whole run is ONE transaction: every domain function is handed a
 * database whose transactions are that one, so a step that fails rolls back everything the run did.
 */

export class FixtureError extends Error {
  constructor(
    message: string,
    /** Where in the document: `steps[2].price` (the step's place from 0, and its field when known). */
    readonly field?: string,
  ) {
    super(message);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Fields = Record<string, Json>;
type Result = Record<string, unknown>;

interface Step {
  index: number;
  kind: StepKind;
  name: string;
  fields: Fields;
}

/** Fields each kind of step takes (anything else is refused, so a typo does not pass unnoticed). */
const STEP_FIELDS = {
  user: [
    'username',
    'accountType',
    'type',
    'country',
    'balance',
    'sellerActivation',
    'firstName',
    'lastName',
    'company',
    'street',
    'zip',
    'city',
    'email',
    'password',
  ],
  app: ['owner', 'kind', 'appName', 'callbackUrl', 'actsFor'],
  product: [
    'idProduct',
    'idGame',
    'name',
    'idCategory',
    'categoryName',
    'idExpansion',
    'idMetacard',
    'dateAdded',
  ],
  catalog: ['files', 'idGame'],
  articles: ['user', 'items'],
  cart: ['user', 'add'],
  order: ['buyer', 'items', 'state', 'trackingNumber', 'reason', 'cancelFrom', 'evaluation'],
  message: ['from', 'to', 'text'],
  wantslist: ['user', 'idGame', 'listName'],
  coupon: ['value', 'code', 'redeemBy'],
  market: ['scenario', 'seed', 'days'],
} as const;
type StepKind = keyof typeof STEP_FIELDS;
const KINDS = Object.keys(STEP_FIELDS) as StepKind[];
const ARTICLE_FLAGS: ArticleFlag[] = [
  'isFoil',
  'isSigned',
  'isAltered',
  'isPlayset',
  'isFirstEd',
  'isReverseHolo',
];

/** The states an `order` step can leave an order in (spec §3; `evaluated` is a received order with its evaluation). */
const ORDER_TARGETS = ['bought', 'paid', 'sent', 'received', 'evaluated', 'lost', 'cancelled'] as const;

export interface FixtureRun {
  /** Each named step's result, in the order of the file. */
  created: Record<string, Result>;
}

/** Reads a fixture file: `.json`, or YAML (`.yaml`, `.yml`, anything else). */
export function readFixtureFile(path: string): { steps: Step[]; baseDir: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new FixtureError(`cannot read the fixture file ${path}`);
  }
  let doc: unknown;
  try {
    doc = path.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new FixtureError(
      `${path} is not valid ${path.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  return { steps: parseSteps(doc), baseDir: dirname(resolve(path)) };
}

/**
 * A fixture document sent as text (the control API's `POST /_cardbazaar/fixtures`): JSON, or YAML
 * (which JSON is a part of).
 */
export function parseFixtureText(text: string, format: 'json' | 'yaml'): Step[] {
  let doc: unknown;
  try {
    doc = format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new FixtureError(
      `the document is not valid ${format === 'json' ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  return parseSteps(doc);
}

/** The credentials of the apps a run created, one entry per `app` step, with its owner's username. */
export interface FixtureApp {
  step: string;
  user: string;
  [key: string]: unknown;
}

export async function fixtureApps(services: Services, steps: Step[], run: FixtureRun): Promise<FixtureApp[]> {
  const apps: FixtureApp[] = [];
  for (const step of steps) {
    if (step.kind !== 'app') continue;
    const result = run.created[step.name]!;
    const owner = await findUserById(services.database.db, result.idOwner as number);
    apps.push({ step: step.name, user: owner?.username ?? '', ...result });
  }
  return apps;
}

/** `{ steps: [{ user: seller, country: D, … }, …] }`: each step's first key is its kind, and that key's value its name. */
export function parseSteps(doc: unknown): Step[] {
  const raw = (doc as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(raw)) throw new FixtureError('a fixture is an object with a "steps" list');
  const names = new Set<string>();
  return raw.map((value, i): Step => {
    const at = `step ${i + 1}`;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new FixtureError(`${at}: a step is an object such as { user: seller, country: D }`);
    }
    const fields = { ...(value as Fields) };
    // The first key says what the step creates (`user: seller`); others may reuse those words as fields.
    const first = Object.keys(fields)[0];
    const kind = KINDS.find((k) => k === first);
    if (!kind) {
      throw new FixtureError(
        `${at}: begin the step with what it creates, one of ${KINDS.join(', ')}, whose value names the result (got ${JSON.stringify(first ?? null)})`,
      );
    }
    const name = fields[kind];
    delete fields[kind];
    if (typeof name !== 'string' || !/^[A-Za-z_][\w-]*$/.test(name)) {
      throw new FixtureError(`${at}, field "${kind}": the step's name is a word (letters, digits, _ and -)`);
    }
    if (names.has(name))
      throw new FixtureError(`${at}, field "${kind}": the name "${name}" is used by an earlier step`);
    names.add(name);
    const allowed: readonly string[] = STEP_FIELDS[kind];
    for (const key of Object.keys(fields)) {
      if (!allowed.includes(key)) {
        throw new FixtureError(
          `${at} (${kind} "${name}"), field "${key}": unknown; a ${kind} step takes ${allowed.join(', ')}`,
        );
      }
    }
    return { index: i + 1, kind, name, fields };
  });
}

/**
 * Runs the steps in one transaction; the first failure throws a FixtureError naming the step and
 * field, and the transaction is rolled back.
 */
export async function runFixture(
  services: Services,
  steps: Step[],
  options: { baseDir?: string } = {},
): Promise<FixtureRun> {
  if (services.config.mode !== 'sandbox') {
    throw new FixtureError('fixtures are for the sandbox only: production refuses them');
  }
  return services.database.transaction(async (tx) => {
    const ctx: Services = { ...services, database: joined(services.database, tx) };
    const created: Record<string, Result> = {};
    for (const step of steps) {
      const fields = substitute(step, step.fields, created, '') as Fields;
      try {
        created[step.name] = await RUNNERS[step.kind](ctx, fields, {
          step,
          baseDir: options.baseDir ?? process.cwd(),
          created,
        });
      } catch (err) {
        throw located(step, err);
      }
    }
    return { created };
  });
}

/**
 * The store, seen from inside the run's transaction: reads and writes go to it, and a domain
 * function's own `transaction(…)` joins it instead of opening another (SQLite has one connection;
 * PostgreSQL would not see the run's uncommitted rows from another).
 */
function joined(database: Database, tx: Tx): Database {
  return {
    db: tx,
    dialect: database.dialect,
    location: database.location,
    transaction: (fn) => fn(tx),
    ping: () => database.ping(),
    close: async () => {},
  };
}

/** An error as the CLI prints it: the step (number, kind, name), the field when known, the reason. */
function located(step: Step, err: unknown): FixtureError {
  if (err instanceof FixtureError && err.message.startsWith('step ')) return err;
  const field =
    err instanceof StepFieldError
      ? err.field
      : err instanceof ApiError
        ? (err as ApiError & { postDataField?: string }).postDataField
        : undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (!(
    err instanceof StepFieldError ||
    err instanceof ApiError ||
    err instanceof FixtureError ||
    err instanceof RecordError
  )) {
    // Anything else is a fault of cardbazaar, not of the file: keep its stack.
    throw err;
  }
  return new FixtureError(
    `step ${step.index} (${step.kind} "${step.name}")${field ? `, field "${field}"` : ''}: ${message}`,
    `steps[${step.index - 1}]${field ? `.${field}` : ''}`,
  );
}

class StepFieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const REFERENCE = /\$\{([A-Za-z_][\w-]*)((?:\.[\w-]+)*)\}/g;

/** Replaces `${name.path}` in every string; a string that is just one reference takes the value itself (a number stays a number). */
function substitute(step: Step, value: Json, created: Record<string, Result>, field: string): Json {
  if (typeof value === 'string') {
    const lookup = (name: string, path: string): Json => {
      const where = field || step.kind;
      if (!(name in created)) {
        throw new FixtureError(
          `step ${step.index} (${step.kind} "${step.name}"), field "${where}": \${${name}${path}} refers to no earlier step`,
        );
      }
      let v: unknown = created[name];
      for (const key of path.split('.').slice(1)) {
        v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
        if (v === undefined) {
          throw new FixtureError(
            `step ${step.index} (${step.kind} "${step.name}"), field "${where}": \${${name}${path}} — "${name}" has no ${path.slice(1)}`,
          );
        }
      }
      return v as Json;
    };
    const whole = /^\$\{([A-Za-z_][\w-]*)((?:\.[\w-]+)*)\}$/.exec(value);
    if (whole) return lookup(whole[1]!, whole[2]!);
    return value.replace(REFERENCE, (_m, name: string, path: string) => {
      const v = lookup(name, path);
      return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substitute(step, v, created, `${field}[${i}]`));
  if (value !== null && typeof value === 'object') {
    const out: Fields = {};
    for (const [k, v] of Object.entries(value))
      out[k] = substitute(step, v, created, field ? `${field}.${k}` : k);
    return out;
  }
  return value;
}

// Reading fields ------------------------------------------------------------------------------

function text(fields: Fields, field: string, fallback?: string): string {
  const v = fields[field];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new StepFieldError(field, 'required');
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw new StepFieldError(field, 'must be a text');
  return String(v);
}

function optionalText(fields: Fields, field: string): string | undefined {
  return fields[field] === undefined || fields[field] === null ? undefined : text(fields, field);
}

function integer(value: Json | undefined, field: string): number {
  const n = typeof value === 'string' && /^\s*\d{1,10}\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 2_147_483_647) {
    throw new StepFieldError(field, `must be a whole number (got ${JSON.stringify(value ?? null)})`);
  }
  return n;
}

/** Euros as `"1.50"`, `"1,50"` or `1.5`; returns cents. */
function money(value: Json | undefined, field: string): number {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new StepFieldError(
      field,
      `must be an amount in euros such as "1.50" (got ${JSON.stringify(value ?? null)})`,
    );
  }
  try {
    return parsePriceCents(String(value), field);
  } catch (err) {
    throw new StepFieldError(field, (err as Error).message);
  }
}

function list(fields: Fields, field: string): Json[] {
  const v = fields[field];
  if (!Array.isArray(v) || v.length === 0) throw new StepFieldError(field, 'must be a non-empty list');
  return v;
}

function object(value: Json, field: string, keys?: readonly string[]): Fields {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new StepFieldError(field, 'must be an object');
  }
  for (const key of Object.keys(value)) {
    if (keys && !keys.includes(key)) {
      throw new StepFieldError(`${field}.${key}`, `unknown; this takes ${keys.join(', ')}`);
    }
  }
  return value;
}

const ARTICLE_FIELDS = ['idProduct', 'count', 'price', 'condition', 'idLanguage', 'comments'];

/**
 * A user: an id (a number, or `${seller.idUser}`), the name of an earlier user step, or the
 * username of someone already there (`demo-seller`).
 */
async function userId(
  ctx: Services,
  fields: Fields,
  field: string,
  created: Record<string, Result>,
): Promise<number> {
  const v = fields[field];
  if (v === undefined || v === null) throw new StepFieldError(field, 'required: a user');
  if (typeof v === 'number') {
    if (await findUserById(ctx.database.db, v)) return v;
    throw new StepFieldError(field, `there is no user ${v}`);
  }
  if (typeof v !== 'string') throw new StepFieldError(field, 'must name a user');
  const earlier = created[v];
  if (earlier && typeof earlier.idUser === 'number' && earlier.username !== undefined) return earlier.idUser;
  const user = await findUserByUsername(ctx.database.db, v);
  if (user) return user.idUser;
  throw new StepFieldError(field, `"${v}" is neither an earlier user step nor a username`);
}

// The steps ----------------------------------------------------------------------------------

interface StepContext {
  step: Step;
  baseDir: string;
  /** The earlier steps' results, for users named by their step. */
  created: Record<string, Result>;
}

type Runner = (ctx: Services, fields: Fields, sc: StepContext) => Promise<Result>;

const RUNNERS: Record<StepKind, Runner> = {
  async user(ctx, f, { step }) {
    let accountType;
    try {
      accountType = parseAccountType(text(f, 'accountType', text(f, 'type', 'private')));
    } catch (err) {
      throw new StepFieldError(f.accountType !== undefined ? 'accountType' : 'type', (err as Error).message);
    }
    const sellerActivation =
      f.sellerActivation === undefined
        ? undefined
        : wrap('sellerActivation', () => parseSellerActivationStart(text(f, 'sellerActivation')));
    const user = await createUser(ctx, {
      username: text(f, 'username', step.name),
      country: text(f, 'country', 'D'),
      accountType,
      ...(f.balance === undefined ? {} : { balanceCents: money(f.balance, 'balance') }),
      ...(sellerActivation === undefined ? {} : { sellerActivation }),
      // An address unless the file gives one: without it the user could not check out.
      firstName: text(f, 'firstName', step.name),
      lastName: text(f, 'lastName', 'Fixture'),
      street: text(f, 'street', '1 Fixture Street'),
      zip: text(f, 'zip', '10115'),
      city: text(f, 'city', 'Berlin'),
      ...optionalFields(f, ['company', 'email']),
    });
    const password = optionalText(f, 'password');
    if (password !== undefined) {
      if (password.length < 8) throw new StepFieldError('password', 'at least 8 characters');
      await setPasswordHash(ctx.database.db, user.idUser, await hashPassword(password));
    }
    return {
      idUser: user.idUser,
      username: user.username,
      country: user.country,
      accountType,
      sellerActivation: user.sellerActivation,
      ...(password === undefined ? {} : { password }),
    };
  },

  async app(ctx, f, { created }) {
    const idOwner = await userId(ctx, f, 'owner', created);
    const kind = wrap('kind', () => parseAppKind(text(f, 'kind')));
    const callbackUrl =
      kind === 'thirdParty'
        ? text(f, 'callbackUrl', 'http://127.0.0.1:9999/callback')
        : optionalText(f, 'callbackUrl');
    const problem = callbackUrl === undefined ? undefined : callbackUrlProblem(callbackUrl, 'sandbox');
    if (problem) throw new StepFieldError('callbackUrl', problem);
    const issued = await createApp(ctx, {
      idUser: idOwner,
      kind,
      ...(f.appName === undefined ? {} : { name: text(f, 'appName') }),
      ...(callbackUrl === undefined ? {} : { callbackUrl }),
    });
    const result: Result = {
      idApp: issued.app.idApp,
      kind,
      name: issued.app.name,
      idOwner,
      appToken: issued.appToken,
      appSecret: issued.appSecret,
      accessToken: issued.accessToken?.token ?? '',
      accessTokenSecret: issued.accessToken?.secret ?? '',
    };
    if (f.actsFor !== undefined) {
      if (kind !== 'thirdParty')
        throw new StepFieldError('actsFor', 'only a third-party app acts for other users');
      const users = Array.isArray(f.actsFor) ? f.actsFor : [f.actsFor];
      const tokens = [];
      for (const [i, u] of users.entries()) {
        const idUser = await userId(ctx, { u }, 'u', created).catch((err: unknown) => {
          throw err instanceof StepFieldError ? new StepFieldError(`actsFor[${i}]`, err.message) : err;
        });
        const token = await createAccessToken(ctx, { idApp: issued.app.idApp, idUser });
        tokens.push({
          idUser,
          idAccessToken: token.idAccessToken,
          accessToken: token.token,
          accessTokenSecret: token.secret,
        });
      }
      // The first user's token completes the four values, like a dedicated app's.
      result.accessToken = tokens[0]!.accessToken;
      result.accessTokenSecret = tokens[0]!.accessTokenSecret;
      result.tokens = tokens;
    }
    return result;
  },

  async product(ctx, f) {
    const idGame = integer(f.idGame ?? 1, 'idGame');
    const record = wrap('product', () =>
      productRecord({
        idCategory: 1,
        categoryName: 'Magic Single',
        ...f,
      }),
    );
    const [name, abbreviation] = gameNamed(idGame);
    await ensureGame(ctx.database.db, idGame, name, abbreviation);
    await upsertProducts(ctx.database.db, idGame, [record]);
    return { ...record, idGame };
  },

  async catalog(ctx, f, { baseDir }) {
    const files = list(f, 'files').map((p, i) =>
      resolve(baseDir, text({ p }, 'p').replace(/^$/, `files[${i}]`)),
    );
    const summaries = await importCatalogFiles(
      ctx,
      files,
      f.idGame === undefined ? {} : { idGame: integer(f.idGame, 'idGame') },
    );
    return { files: summaries };
  },

  async articles(ctx, f, { created }) {
    const idUser = await userId(ctx, f, 'user', created);
    const items: BulkItem<NewArticleInput>[] = list(f, 'items').map((raw, i) => {
      const a = object(raw, `items[${i}]`, [...ARTICLE_FIELDS, ...ARTICLE_FLAGS]);
      const at = (k: string) => `items[${i}].${k}`;
      const flags: NewArticleInput['flags'] = {};
      for (const flag of ARTICLE_FLAGS) {
        if (a[flag] !== undefined) flags[flag] = a[flag] === true || a[flag] === 'true';
      }
      const input: NewArticleInput = {
        idProduct: integer(a.idProduct, at('idProduct')),
        count: integer(a.count ?? 1, at('count')),
        price: money(a.price, at('price')),
        flags,
        ...(a.idLanguage === undefined ? {} : { idLanguage: integer(a.idLanguage, at('idLanguage')) }),
        ...(a.condition === undefined ? {} : { condition: text(a, 'condition') }),
        ...(a.comments === undefined ? {} : { comments: text(a, 'comments') }),
      };
      return { tried: raw, input };
    });
    const results = await addArticles(ctx, idUser, items);
    const articles = results.map((r, i) => {
      if ('error' in r) throw new StepFieldError(`items[${i}]`, r.error);
      return {
        idArticle: r.article.view.idArticle,
        idProduct: r.article.view.idProduct,
        count: r.article.view.count,
      };
    });
    return { idUser, articles, idArticle: articles[0]!.idArticle };
  },

  async cart(ctx, f, { created }) {
    const idBuyer = await userId(ctx, f, 'user', created);
    const { cart } = await fillCart(ctx, idBuyer, f, 'add');
    return {
      idUser: idBuyer,
      articles: cart.reservations.flatMap((r) =>
        r.lines.map((l) => ({ idArticle: l.view.idArticle, count: l.reserved })),
      ),
    };
  },

  async order(ctx, f, { step, created }) {
    const idBuyer = await userId(ctx, f, 'buyer', created);
    const target = text(f, 'state', 'bought') as (typeof ORDER_TARGETS)[number];
    if (!ORDER_TARGETS.includes(target)) {
      throw new StepFieldError('state', `one of ${ORDER_TARGETS.join(', ')} (got "${target}")`);
    }
    const cancelFrom = text(f, 'cancelFrom', 'bought');
    if (cancelFrom !== 'bought' && cancelFrom !== 'paid')
      throw new StepFieldError('cancelFrom', 'bought or paid');
    await fillCart(ctx, idBuyer, f, 'items');
    // The buyer's whole cart becomes orders, one per seller, as at the real checkout.
    const orders = await checkout(ctx, idBuyer);
    const results = [];
    for (const view of orders) {
      const { idSeller, wasMergedInto } = view.order;
      let { idOrder } = view.order;
      if (wasMergedInto !== null) {
        // As on the live service, a second unpaid order between the same two users joins the first.
        if (target !== 'bought') {
          throw new StepFieldError(
            'items',
            `the new order was merged into the buyer's unpaid order ${wasMergedInto} with the same seller; order this one before the bought one, or pay that first`,
          );
        }
        idOrder = wasMergedInto;
      }
      const reason = text(f, 'reason', `Fixture ${step.name}`);
      const act = (idUser: number, action: Parameters<typeof actOnOrder>[3]) =>
        actOnOrder(ctx, idUser, idOrder, action);
      if (target === 'cancelled') {
        // Through the mutual cancellation, which has no waiting period (a plain cancel waits 7 days).
        if (cancelFrom === 'paid') {
          await payOrder(ctx, idOrder);
          await act(idBuyer, { action: 'requestCancellation', reason });
          await act(idSeller, { action: 'acceptCancellation' });
        } else {
          await act(idSeller, { action: 'requestCancellation', reason });
          await act(idBuyer, { action: 'acceptCancellation' });
        }
      } else if (target !== 'bought') {
        await payOrder(ctx, idOrder);
        if (target !== 'paid') {
          const trackingNumber = optionalText(f, 'trackingNumber');
          await act(idSeller, { action: 'send', ...(trackingNumber ? { trackingNumber } : {}) });
          if (target === 'lost') await settleLost(ctx, idOrder, reason);
          else if (target !== 'sent') {
            await act(idBuyer, { action: 'confirmReception' });
            if (target === 'evaluated') {
              const e =
                f.evaluation === undefined
                  ? {}
                  : object(f.evaluation, 'evaluation', [
                      'evaluationGrade',
                      'itemDescription',
                      'packaging',
                      'speed',
                      'comment',
                      'complaint',
                    ]);
              const grade = (k: string, d: number) => integer(e[k] ?? d, `evaluation.${k}`);
              await evaluateOrder(ctx, idBuyer, idOrder, {
                evaluationGrade: grade('evaluationGrade', 1),
                itemDescription: grade('itemDescription', 1),
                packaging: grade('packaging', 1),
                speed: e.speed === undefined ? undefined : grade('speed', 1),
                comment: e.comment === undefined ? '' : text(e, 'comment'),
                complaint: Array.isArray(e.complaint) ? e.complaint.map(String) : [],
              });
            }
          }
        }
      }
      results.push({
        idOrder,
        idBuyer,
        idSeller,
        state: target,
        totalValue: formatCents(view.order.totalValue),
      });
    }
    if (results.length === 0) throw new StepFieldError('items', 'the cart was empty: nothing to order');
    return { ...results[0]!, orders: results };
  },

  async message(ctx, f, { created }) {
    const from = await userId(ctx, f, 'from', created);
    const to = await userId(ctx, f, 'to', created);
    const thread = await sendMessage(ctx, from, to, text(f, 'text'));
    return { idMessage: thread.messages[0]!.idMessage, from, to };
  },

  async wantslist(ctx, f, { step, created }) {
    const idUser = await userId(ctx, f, 'user', created);
    const made = await createWantslists(ctx, idUser, [
      { idGame: String(integer(f.idGame ?? 1, 'idGame')), name: text(f, 'listName', step.name) },
    ]);
    const wl = made.created[0];
    if (made.failed.length > 0 || !wl)
      throw new StepFieldError('listName', made.failed[0]?.error ?? 'not created');
    return { idWantslist: wl.idWantslist, idUser, name: wl.name };
  },

  async coupon(ctx, f, { created }) {
    const value = money(f.value, 'value');
    const code = optionalText(f, 'code');
    const couponCode = await createCoupon(ctx, value, code);
    const result: Result = { couponCode, value: formatCents(value) };
    if (f.redeemBy !== undefined) {
      const idUser = await userId(ctx, f, 'redeemBy', created);
      const { coupon } = await redeemCoupons(ctx, idUser, [couponCode]);
      if (!coupon[0]?.successful) throw new StepFieldError('redeemBy', coupon[0]?.message ?? 'not redeemed');
      result.redeemedBy = idUser;
    }
    return result;
  },
  async market(ctx, f) {
    // A living market (docs/testing-your-client.md, "A living market") run for `days` marketplace
    // days inside the fixture's transaction, from the marketplace time now; the clock is left
    // where the market stopped. Its events are delivered by the server afterwards, as any step's.
    let scenario;
    try {
      scenario = loadScenario(text(f, 'scenario'));
    } catch (err) {
      if (err instanceof ScenarioError) throw new StepFieldError('scenario', err.message);
      throw err;
    }
    const seed = text(f, 'seed', '1');
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(seed))
      throw new StepFieldError('seed', 'must be 1 to 40 letters, digits, dashes or underscores');
    const days = integer(f.days ?? 1, 'days');
    if (days < 1 || days > 60) throw new StepFieldError('days', 'must be from 1 to 60');
    const clock = new ManualClock(ctx.clock.now());
    const summary = await runMarket({ ...ctx, clock, events: { deliverPending: async () => 0 } }, clock, {
      scenario,
      seed,
      days,
    });
    if (ctx.clock instanceof ManualClock) ctx.clock.set(clock.now());
    else {
      const offset = clock.now() - Date.now();
      await putSetting(ctx.database.db, CLOCK_OFFSET, String(offset));
      if (ctx.clock instanceof OffsetClock) ctx.clock.setOffset(offset);
    }
    return {
      scenario: summary.scenario,
      seed,
      days: summary.days,
      traders: summary.traders,
      products: summary.products,
      actions: summary.actions,
    };
  },
};

async function fillCart(ctx: Services, idBuyer: number, f: Fields, field: 'add' | 'items') {
  const items: CartItem[] = list(f, field).map((raw, i) => {
    const a = object(raw, `${field}[${i}]`, ['idArticle', 'count']);
    return {
      idArticle: integer(a.idArticle, `${field}[${i}].idArticle`),
      count: integer(a.count ?? 1, `${field}[${i}].count`),
    };
  });
  const { cart, failed } = await changeCart(ctx, idBuyer, 'add', items);
  const first = failed[0];
  if (first) {
    const i = items.findIndex((it) => it.idArticle === first.idArticle);
    throw new StepFieldError(`${field}[${i}]`, first.error);
  }
  return { cart };
}

function wrap<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof StepFieldError) throw err;
    throw new StepFieldError(field, (err as Error).message);
  }
}

function optionalFields(f: Fields, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = optionalText(f, k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
