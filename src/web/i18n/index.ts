import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { it } from './it.js';

/**
 * The website's texts, one dictionary per display language (`en.ts` … `it.ts`). English defines the
 * keys; the type makes every other dictionary carry all of them, so a page cannot be half
 * translated. Texts take `{name}` placeholders. Error messages of the domain are looked up as
 * `errors.<internal_error_code>`; a code without a text shows the domain's English message.
 */
export type Key = keyof typeof en;
export type Dictionary = Record<Key, string>;

export const LANGS = ['en', 'fr', 'de', 'es', 'it'] as const;
export type Lang = (typeof LANGS)[number];

const DICTIONARIES: Record<Lang, Dictionary> = { en, fr, de, es, it };

/** The API's `idDisplayLanguage` (1 English … 5 Italian) and the website's language codes. */
export const langOfDisplayLanguage = (id: number): Lang => LANGS[id - 1] ?? 'en';
export const displayLanguageOf = (lang: Lang): number => LANGS.indexOf(lang) + 1;

export const isLang = (text: unknown): text is Lang =>
  typeof text === 'string' && (LANGS as readonly string[]).includes(text);

export type Params = Record<string, string | number>;
export type Translator = ((key: Key, params?: Params) => string) & {
  /** A text whose key is computed (`errors.<code>`), or undefined when the dictionary has none. */
  maybe(key: string, params?: Params): string | undefined;
};

const pluralRules = new Map<Lang, Intl.PluralRules>();

/**
 * `{name}` takes a parameter; `{name|one|other}` picks the word by the language's plural rule for
 * that number ("1 card", "2 cards"; French counts 0 as singular too).
 */
function fill(lang: Lang, text: string, params: Params | undefined): string {
  if (!params) return text;
  return text.replace(
    /\{(\w+)(?:\|([^|{}]*)\|([^|{}]*))?\}/g,
    (m, name: string, one?: string, other?: string) => {
      if (!(name in params)) return m;
      if (one === undefined) return String(params[name]);
      let rules = pluralRules.get(lang);
      if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(lang)));
      return rules.select(Number(params[name])) === 'one' ? one : other!;
    },
  );
}

const translators = new Map<Lang, Translator>();

export function translator(lang: Lang): Translator {
  let t = translators.get(lang);
  if (!t) {
    const dictionary = DICTIONARIES[lang];
    t = Object.assign((key: Key, params?: Params) => fill(lang, dictionary[key], params), {
      maybe: (key: string, params?: Params) =>
        key in dictionary ? fill(lang, dictionary[key as Key], params) : undefined,
    });
    translators.set(lang, t);
  }
  return t;
}

/** The best of the five for an `Accept-Language` header (`de-CH,de;q=0.9,en;q=0.8` → de). */
export function langFromAcceptLanguage(header: string | undefined): Lang {
  if (!header) return 'en';
  let best: Lang = 'en';
  let bestQ = 0;
  for (const part of header.slice(0, 500).split(',')) {
    const [tag, ...rest] = part.trim().split(';');
    const q = Number(
      rest
        .find((r) => r.trim().startsWith('q='))
        ?.trim()
        .slice(2) ?? 1,
    );
    const primary = tag?.trim().toLowerCase().split('-')[0];
    if (isLang(primary) && Number.isFinite(q) && q > bestQ) {
      best = primary;
      bestQ = q;
    }
  }
  return best;
}
