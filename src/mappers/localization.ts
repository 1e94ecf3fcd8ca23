import { type Static, Type } from '@sinclair/typebox';
import { DISPLAY_LANGUAGES, languageName } from '../domain/catalog.js';

export const LocalizationSchema = Type.Array(
  Type.Object(
    { name: Type.String(), idLanguage: Type.Integer(), languageName: Type.String() },
    { $id: 'Localization', description: 'A name in one display language (reference §2.6).' },
  ),
);

/**
 * The `localization` list of a named entity (reference §2.6): one entry per display language, in
 * language order, the English name standing in where a language has none.
 */
export function mapLocalization(
  names: Partial<Record<number, string>>,
  enName: string,
): Static<typeof LocalizationSchema> {
  return DISPLAY_LANGUAGES.map((idLanguage) => ({
    name: names[idLanguage] ?? enName,
    idLanguage,
    languageName: languageName(idLanguage),
  }));
}

/** The name in the viewer's language, English where that language has none. */
export function localName(
  names: Partial<Record<number, string>>,
  enName: string,
  idLanguage: number,
): string {
  return names[idLanguage] ?? enName;
}
