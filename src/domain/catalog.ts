/**
 * Fixed tables of the marketplace, with the ids the real API uses (reference §2.4, §2.6, §2.10).
 */

export const LANGUAGES: Record<number, string> = {
  1: 'English',
  2: 'French',
  3: 'German',
  4: 'Spanish',
  5: 'Italian',
  6: 'S-Chinese',
  7: 'Japanese',
  8: 'Portuguese',
  9: 'Russian',
  10: 'Korean',
  11: 'T-Chinese',
};

/** The language ids (1 to 11, with no gaps): the bounds the OpenAPI document gives an `idLanguage`. */
export const LANGUAGE_ID_RANGE = {
  minimum: Math.min(...Object.keys(LANGUAGES).map(Number)),
  maximum: Math.max(...Object.keys(LANGUAGES).map(Number)),
} as const;

/** The five languages products are localized in, and the website can be displayed in. */
export const DISPLAY_LANGUAGES = [1, 2, 3, 4, 5] as const;

export function languageName(idLanguage: number): string {
  return LANGUAGES[idLanguage] ?? 'Unknown';
}

export function isLanguage(idLanguage: number): boolean {
  return idLanguage in LANGUAGES;
}

/** Best first: `minCondition=EX` means EX or better, i.e. a rank at most EX's. */
export const CONDITIONS = ['MT', 'NM', 'EX', 'GD', 'LP', 'PL', 'PO'] as const;
export type Condition = (typeof CONDITIONS)[number];

export function conditionRank(condition: string): number {
  return CONDITIONS.indexOf(condition as Condition);
}

export function isCondition(value: string): value is Condition {
  return (CONDITIONS as readonly string[]).includes(value);
}

export type ArticleFlag = 'isFoil' | 'isSigned' | 'isAltered' | 'isPlayset' | 'isFirstEd' | 'isReverseHolo';
export const ARTICLE_FLAGS: readonly ArticleFlag[] = [
  'isFoil',
  'isSigned',
  'isAltered',
  'isPlayset',
  'isFirstEd',
  'isReverseHolo',
];

export interface GameRules {
  /** Whether single cards of this game are graded (MT…PO). Sealed product never is. */
  gradesCondition: boolean;
  /** The article flags this game's products can carry; others are refused on input, absent on output. */
  flags: readonly ArticleFlag[];
}

const DEFAULT_RULES: GameRules = { gradesCondition: true, flags: ['isFoil', 'isSigned', 'isAltered'] };

export const GAME_RULES: Record<number, GameRules> = {
  1: { gradesCondition: true, flags: ['isFoil', 'isSigned', 'isAltered', 'isPlayset'] },
  3: { gradesCondition: true, flags: ['isFirstEd', 'isSigned', 'isAltered'] },
  6: { gradesCondition: true, flags: ['isFirstEd', 'isReverseHolo', 'isSigned', 'isAltered'] },
};

export function gameRules(idGame: number): GameRules {
  return GAME_RULES[idGame] ?? DEFAULT_RULES;
}

/** Account types as the API numbers them (`isCommercial`) and as the CLI and filters name them. */
export const ACCOUNT_TYPES = { private: 0, professional: 1, powerseller: 2 } as const;
export type AccountType = keyof typeof ACCOUNT_TYPES;
