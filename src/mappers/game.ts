import type { GamesTable } from '../store/schema.js';
import { link } from './values.js';

/**
 * The Game entity (reference §2.4). Inside a wants list it comes without `links`, as the recorded
 * responses show it there.
 */
export function mapGame(game: GamesTable, { withLinks = true }: { withLinks?: boolean } = {}) {
  return {
    idGame: game.idGame,
    name: game.name,
    abbreviation: game.abbreviation,
    links: withLinks ? [link('expansions', `/games/${game.idGame}/expansions`)] : undefined,
  };
}
