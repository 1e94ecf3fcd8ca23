import type { GamesTable } from '../store/schema.js';
import { link } from './values.js';

/** The Game entity (reference §2.4). */
export function mapGame(game: GamesTable) {
  return {
    idGame: game.idGame,
    name: game.name,
    abbreviation: game.abbreviation,
    links: [link('expansions', `/games/${game.idGame}/expansions`)],
  };
}
