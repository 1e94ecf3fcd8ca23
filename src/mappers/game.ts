import type { GamesTable } from '../store/schema.js';
import { type Static, Type } from '@sinclair/typebox';
import { link, LinksSchema } from './values.js';

export const GameSchema = Type.Object(
  {
    idGame: Type.Integer(),
    name: Type.String(),
    abbreviation: Type.String(),
    links: Type.Optional(LinksSchema),
  },
  { $id: 'Game', description: 'Game (reference §2.4); without `links` inside a wants list.' },
);
export type Game = Static<typeof GameSchema>;

/**
 * The Game entity (reference §2.4). Inside a wants list it comes without `links`, as the recorded
 * responses show it there.
 */
export function mapGame(game: GamesTable, { withLinks = true }: { withLinks?: boolean } = {}): Game {
  return {
    idGame: game.idGame,
    name: game.name,
    abbreviation: game.abbreviation,
    links: withLinks ? [link('expansions', `/games/${game.idGame}/expansions`)] : undefined,
  };
}
