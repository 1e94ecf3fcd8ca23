import type { ExpansionsTable } from '../store/schema.js';
import { type Static, Type } from '@sinclair/typebox';
import { LocalizationSchema, mapLocalization } from './localization.js';
import { bool, BoolSchema, link, LinksSchema, Nullable, timestamp, TimestampSchema } from './values.js';

export const ExpansionSchema = Type.Object(
  {
    idExpansion: Type.Integer(),
    enName: Type.String(),
    localization: LocalizationSchema,
    abbreviation: Type.String(),
    icon: Type.Integer(),
    releaseDate: Nullable(TimestampSchema),
    isReleased: BoolSchema,
    idGame: Type.Integer(),
    links: LinksSchema,
  },
  { $id: 'Expansion', description: 'Expansion (reference §2.5).' },
);
export type Expansion = Static<typeof ExpansionSchema>;

/** The Expansion entity (reference §2.5). */
export function mapExpansion(expansion: ExpansionsTable, names: Partial<Record<number, string>>): Expansion {
  return {
    idExpansion: expansion.idExpansion,
    enName: expansion.enName,
    localization: mapLocalization(names, expansion.enName),
    abbreviation: expansion.abbreviation,
    icon: expansion.icon,
    releaseDate: timestamp(expansion.releaseDate),
    isReleased: bool(expansion.isReleased),
    idGame: expansion.idGame,
    links: [link('singles', `/expansions/${expansion.idExpansion}/singles`)],
  };
}
