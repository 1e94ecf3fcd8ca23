import type { ExpansionsTable } from '../store/schema.js';
import { mapLocalization } from './localization.js';
import { bool, link, timestamp } from './values.js';

/** The Expansion entity (reference §2.5). */
export function mapExpansion(expansion: ExpansionsTable, names: Partial<Record<number, string>>) {
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
