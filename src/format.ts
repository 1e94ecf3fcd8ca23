/**
 * Money and time as text, for everything that writes them: the API's serializer (through
 * `mappers/values.ts`), the domain's messages and files, the CLI, and the website, which shows them
 * in the reader's locale. Money is integer cents and time epoch milliseconds everywhere else; they
 * become text only here.
 */

/** `1234` → `"12.34"`, `-5` → `"-0.05"`; exact for every integer, no floating point involved. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100);
  const rest = abs % 100;
  return `${sign}${units}.${rest < 10 ? '0' : ''}${rest}`;
}

/**
 * The real API writes times in the marketplace's zone (Europe/Berlin) with a numeric offset and no
 * colon: `2019-08-23T14:30:04+0200`. The zone's offset is found once per hour of time and cached,
 * because Intl is slow and responses carry many timestamps.
 */
const ZONE = 'Europe/Berlin';
const offsetCache = new Map<number, number>();
const zoneParts = new Intl.DateTimeFormat('en-US', {
  timeZone: ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** Minutes east of UTC in Europe/Berlin at that instant. */
export function berlinOffsetMinutes(ms: number): number {
  const hour = Math.floor(ms / 3_600_000);
  const cached = offsetCache.get(hour);
  if (cached !== undefined) return cached;
  const at = hour * 3_600_000;
  const p: Record<string, number> = {};
  for (const part of zoneParts.formatToParts(new Date(at))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const local = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  const offset = Math.round((local - at) / 60_000);
  if (offsetCache.size > 10_000) offsetCache.clear();
  offsetCache.set(hour, offset);
  return offset;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Timestamps written, by epoch ms: a pure function of its argument, and the same messages, orders
 * and accounts are written again on every read of them (a thread of 40 messages writes 40).
 * Bounded: cleared when full.
 */
const TIMESTAMPS = new Map<number, string>();
const MAX_TIMESTAMPS = 10_000;

export function formatTimestamp(ms: number): string {
  let text = TIMESTAMPS.get(ms);
  if (text === undefined) {
    text = formatTimestampNow(ms);
    if (TIMESTAMPS.size >= MAX_TIMESTAMPS) TIMESTAMPS.clear();
    TIMESTAMPS.set(ms, text);
  }
  return text;
}

function formatTimestampNow(ms: number): string {
  const offset = berlinOffsetMinutes(ms);
  const d = new Date(ms + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
  );
}

/**
 * `2023-06-22 14:30:04`: Berlin time without a zone, the database form the live API's export
 * records show (an unfinished export's `finishedAt` is `0000-00-00 00:00:00`).
 */
export function dateTimeText(ms: number | null): string {
  if (ms === null) return '0000-00-00 00:00:00';
  const d = new Date(ms + berlinOffsetMinutes(ms) * 60_000);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    ` ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/** The locales the website writes in, by its display language (en fr de es it). */
const LOCALES: Record<string, string> = { en: 'en-GB', fr: 'fr-FR', de: 'de-DE', es: 'es-ES', it: 'it-IT' };
export const localeOf = (lang: string) => LOCALES[lang] ?? 'en-GB';

/**
 * A money format with the amounts it has written, by cents: a pure function of them, and Intl's
 * formatting costs a few microseconds a call, where a page of 100 offers writes 100 prices, most of
 * them the same few. Bounded: cleared when full.
 */
interface MoneyFormat {
  format: Intl.NumberFormat;
  written: Map<number, string>;
}
const moneyFormats = new Map<string, MoneyFormat>();
const MAX_AMOUNTS = 10_000;
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** `1234` in German → `12,34 €`; from integer cents, exact (the division by 100 is of an integer). */
export function formatMoney(cents: number, lang: string, currency = 'EUR'): string {
  const key = currency === 'EUR' ? lang : `${lang}|${currency}`;
  let f = moneyFormats.get(key);
  if (!f) {
    f = {
      format: new Intl.NumberFormat(localeOf(lang), { style: 'currency', currency }),
      written: new Map(),
    };
    moneyFormats.set(key, f);
  }
  // A map takes -0 for 0, which Intl writes with its sign.
  if (Object.is(cents, -0)) return f.format.format(-0);
  let text = f.written.get(cents);
  if (text === undefined) {
    text = f.format.format(cents / 100);
    if (f.written.size >= MAX_AMOUNTS) f.written.clear();
    f.written.set(cents, text);
  }
  return text;
}

/** A moment as a reader in `lang` writes it, in the marketplace's zone (Europe/Berlin). */
export function formatDateTime(ms: number, lang: string): string {
  let f = dateTimeFormats.get(lang);
  if (!f) {
    f = new Intl.DateTimeFormat(localeOf(lang), { timeZone: ZONE, dateStyle: 'medium', timeStyle: 'short' });
    dateTimeFormats.set(lang, f);
  }
  return f.format(new Date(ms));
}

export function formatDate(ms: number, lang: string): string {
  let f = dateFormats.get(lang);
  if (!f) {
    f = new Intl.DateTimeFormat(localeOf(lang), { timeZone: ZONE, dateStyle: 'medium' });
    dateFormats.set(lang, f);
  }
  return f.format(new Date(ms));
}
