import { readFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/**
 * A market scenario: which products the market trades (a slice of whatever catalog the database
 * holds), the value process behind them, the traders and their counts, and scheduled shocks. Kept as
 * JSON or YAML files; `calm`, `spike` and `sellout` ship in scenarios/market/. Every error names the
 * field at fault (`traders[2].count: …`), so a hand-written file is quick to fix.
 */

export const TRADER_KINDS = [
  'house',
  'undercutter',
  'collector',
  'bulkBuyer',
  'slowShipper',
  'vacationer',
  'canceller',
] as const;
export type TraderKind = (typeof TRADER_KINDS)[number];

export interface TraderSpec {
  kind: TraderKind;
  count: number;
  /** Chance the trader acts in a step (0–1). */
  activity: number;
  /** How far above the fair value a seller asks, and a market maker bids below (fraction). */
  spread: number;
  /** Cents the trader starts with; a buyer is topped up to it when below half at a day's end. */
  budget: number;
  /** Marketplace days between an order being paid and the seller sending it. */
  shipDelayDays: number;
  /** How far under the fair value an undercutter goes at most (fraction): its floor. */
  floor: number;
  /** How many products a seller (not a house seller: it trades all) or a collector handles. */
  products: number;
  /** Copies a seller lists at a time. */
  restock: number;
  /** Chance a canceller asks to cancel an open order when it acts; a vacationer leaves on a given day. */
  chance: number;
}

export type Shock =
  | { day: number; type: 'value'; product: number | 'all'; factor: number; permanent: boolean }
  | { day: number; type: 'vacation'; trader: string; days: number }
  | { day: number; type: 'noRestock'; product: number | 'all'; days: number };

export interface Scenario {
  name: string;
  description: string;
  products: { count: number; idGame?: number; ids?: number[] };
  stepsPerDay: number;
  value: {
    /** Pull towards the anchor per day (0–1). */
    meanReversion: number;
    /** Standard deviation of the log value per square-root day. */
    volatility: number;
    /** The range a fair value starts in (cents) for a product without a price guide. */
    defaultMin: number;
    defaultMax: number;
  };
  traders: TraderSpec[];
  shocks: Shock[];
}

export class ScenarioError extends Error {}

const DEFAULTS: Omit<TraderSpec, 'kind' | 'count'> = {
  activity: 0.5,
  spread: 0.08,
  budget: 50_000,
  shipDelayDays: 1,
  floor: 0.15,
  products: 3,
  restock: 4,
  chance: 0.1,
};

type Obj = Record<string, unknown>;

function fail(source: string, field: string, message: string): never {
  throw new ScenarioError(`scenario ${source}: ${field}: ${message}`);
}

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unknownKeys(source: string, field: string, value: Obj, allowed: string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      fail(source, field ? `${field}.${key}` : key, `unknown field (allowed: ${allowed.join(', ')})`);
  }
}

function num(
  source: string,
  field: string,
  value: unknown,
  opts: { min: number; max: number; integer?: boolean; fallback?: number },
): number {
  if (value === undefined) {
    if (opts.fallback !== undefined) return opts.fallback;
    fail(source, field, 'is required');
  }
  if (typeof value !== 'number' || !Number.isFinite(value))
    fail(source, field, `must be a number (got ${JSON.stringify(value)})`);
  if (opts.integer && !Number.isInteger(value)) fail(source, field, `must be a whole number (got ${value})`);
  if (value < opts.min || value > opts.max)
    fail(source, field, `must be from ${opts.min} to ${opts.max} (got ${value})`);
  return value;
}

function productRef(source: string, field: string, value: unknown): number | 'all' {
  if (value === 'all') return 'all';
  return num(source, field, value, { min: 0, max: 10_000, integer: true });
}

/** Checks a parsed scenario and fills in the defaults; `source` names it in errors. */
export function validateScenario(raw: unknown, source: string): Scenario {
  if (!isObject(raw)) fail(source, '(top level)', 'must be an object');
  unknownKeys(source, '', raw, [
    'name',
    'description',
    'products',
    'stepsPerDay',
    'value',
    'traders',
    'shocks',
  ]);
  const name = raw.name ?? source;
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$/.test(name))
    fail(source, 'name', 'must be 1 to 20 letters, digits, dashes or underscores');
  const description = raw.description ?? '';
  if (typeof description !== 'string') fail(source, 'description', 'must be a string');

  const p = raw.products ?? {};
  if (!isObject(p)) fail(source, 'products', 'must be an object');
  unknownKeys(source, 'products', p, ['count', 'idGame', 'ids']);
  const products: Scenario['products'] = {
    count: num(source, 'products.count', p.count, { min: 1, max: 500, integer: true, fallback: 12 }),
  };
  if (p.idGame !== undefined)
    products.idGame = num(source, 'products.idGame', p.idGame, { min: 1, max: 1_000_000, integer: true });
  if (p.ids !== undefined) {
    if (!Array.isArray(p.ids) || p.ids.length === 0)
      fail(source, 'products.ids', 'must be a list of product ids');
    products.ids = p.ids.map((id, i) =>
      num(source, `products.ids[${i}]`, id, { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }),
    );
  }

  const stepsPerDay = num(source, 'stepsPerDay', raw.stepsPerDay, {
    min: 1,
    // A step a marketplace minute: at --speed 60 a step a real second, a market that acts
    // continuously beside the requests rather than in bursts.
    max: 1440,
    integer: true,
    fallback: 4,
  });

  const v = raw.value ?? {};
  if (!isObject(v)) fail(source, 'value', 'must be an object');
  unknownKeys(source, 'value', v, ['meanReversion', 'volatility', 'defaultMin', 'defaultMax']);
  const value: Scenario['value'] = {
    meanReversion: num(source, 'value.meanReversion', v.meanReversion, { min: 0, max: 1, fallback: 0.2 }),
    volatility: num(source, 'value.volatility', v.volatility, { min: 0, max: 2, fallback: 0.04 }),
    defaultMin: num(source, 'value.defaultMin', v.defaultMin, {
      min: 2,
      max: 10_000_000,
      integer: true,
      fallback: 50,
    }),
    defaultMax: num(source, 'value.defaultMax', v.defaultMax, {
      min: 2,
      max: 10_000_000,
      integer: true,
      fallback: 2000,
    }),
  };
  if (value.defaultMax < value.defaultMin)
    fail(source, 'value.defaultMax', 'must not be below value.defaultMin');

  if (!Array.isArray(raw.traders) || raw.traders.length === 0)
    fail(source, 'traders', 'must be a non-empty list of { kind, count, … }');
  const traders = raw.traders.map((t, i): TraderSpec => {
    const f = `traders[${i}]`;
    if (!isObject(t)) fail(source, f, 'must be an object');
    unknownKeys(source, f, t, ['kind', 'count', ...Object.keys(DEFAULTS)]);
    if (typeof t.kind !== 'string' || !(TRADER_KINDS as readonly string[]).includes(t.kind))
      fail(source, `${f}.kind`, `must be one of ${TRADER_KINDS.join(', ')} (got ${JSON.stringify(t.kind)})`);
    const kind = t.kind as TraderKind;
    return {
      kind,
      count: num(source, `${f}.count`, t.count, { min: 0, max: 5000, integer: true }),
      activity: num(source, `${f}.activity`, t.activity, { min: 0, max: 1, fallback: DEFAULTS.activity }),
      spread: num(source, `${f}.spread`, t.spread, { min: 0, max: 5, fallback: DEFAULTS.spread }),
      budget: num(source, `${f}.budget`, t.budget, {
        min: 0,
        max: 100_000_000,
        integer: true,
        fallback: DEFAULTS.budget,
      }),
      shipDelayDays: num(source, `${f}.shipDelayDays`, t.shipDelayDays, {
        min: 0,
        max: 60,
        fallback: kind === 'slowShipper' ? 4 : DEFAULTS.shipDelayDays,
      }),
      floor: num(source, `${f}.floor`, t.floor, { min: 0, max: 0.99, fallback: DEFAULTS.floor }),
      products: num(source, `${f}.products`, t.products, {
        min: 1,
        max: 500,
        integer: true,
        fallback: DEFAULTS.products,
      }),
      restock: num(source, `${f}.restock`, t.restock, {
        min: 1,
        max: 999,
        integer: true,
        fallback: DEFAULTS.restock,
      }),
      chance: num(source, `${f}.chance`, t.chance, { min: 0, max: 1, fallback: DEFAULTS.chance }),
    };
  });
  if (!traders.some((t) => t.count > 0)) fail(source, 'traders', 'must have at least one trader');

  const rawShocks = raw.shocks ?? [];
  if (!Array.isArray(rawShocks)) fail(source, 'shocks', 'must be a list');
  const shocks = rawShocks.map((s, i): Shock => {
    const f = `shocks[${i}]`;
    if (!isObject(s)) fail(source, f, 'must be an object');
    const day = num(source, `${f}.day`, s.day, { min: 0, max: 100_000, integer: true });
    switch (s.type) {
      case 'value':
        unknownKeys(source, f, s, ['day', 'type', 'product', 'factor', 'permanent']);
        if (s.permanent !== undefined && typeof s.permanent !== 'boolean')
          fail(source, `${f}.permanent`, 'must be true or false');
        return {
          day,
          type: 'value',
          product: productRef(source, `${f}.product`, s.product),
          factor: num(source, `${f}.factor`, s.factor, { min: 0.01, max: 100 }),
          permanent: s.permanent === true,
        };
      case 'vacation':
        unknownKeys(source, f, s, ['day', 'type', 'trader', 'days']);
        if (typeof s.trader !== 'string' || s.trader === '')
          fail(
            source,
            `${f}.trader`,
            'must name a trader (e.g. "vacationer-1") or a kind (e.g. "vacationer")',
          );
        return {
          day,
          type: 'vacation',
          trader: s.trader,
          days: num(source, `${f}.days`, s.days, { min: 1, max: 365, integer: true }),
        };
      case 'noRestock':
        unknownKeys(source, f, s, ['day', 'type', 'product', 'days']);
        return {
          day,
          type: 'noRestock',
          product: productRef(source, `${f}.product`, s.product),
          days: num(source, `${f}.days`, s.days, { min: 1, max: 365, integer: true }),
        };
      default:
        fail(source, `${f}.type`, `must be value, vacation or noRestock (got ${JSON.stringify(s.type)})`);
    }
  });
  return { name, description, products, stepsPerDay, value, traders, shocks };
}

/** Where the shipped scenarios live: scenarios/market/ at the package root (from src/ or dist/). */
export const SCENARIO_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'scenarios',
  'market',
);

export const SHIPPED_SCENARIOS = ['calm', 'spike', 'sellout'] as const;

/** Parses JSON or YAML text (by the file's extension; YAML, a superset of JSON, otherwise). */
export function parseScenario(text: string, source: string, ext = ''): Scenario {
  let raw: unknown;
  try {
    raw = ext === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ScenarioError(
      `scenario ${source}: not valid ${ext === '.json' ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  return validateScenario(raw, source);
}

/** A shipped scenario by name, or a JSON/YAML file by path. */
export function loadScenario(nameOrFile: string): Scenario {
  const shipped = (SHIPPED_SCENARIOS as readonly string[]).includes(nameOrFile);
  const path = shipped ? join(SCENARIO_DIR, `${nameOrFile}.json`) : nameOrFile;
  if (!existsSync(path))
    throw new ScenarioError(
      `scenario ${nameOrFile}: no such file, and not one of the shipped scenarios (${SHIPPED_SCENARIOS.join(', ')})`,
    );
  const ext = extname(path).toLowerCase();
  return parseScenario(readFileSync(path, 'utf8'), shipped ? nameOrFile : basename(path, extname(path)), ext);
}
