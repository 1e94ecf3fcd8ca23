import { type Static, Type } from '@sinclair/typebox';
import type { ProductFacts } from '../store/articles.js';
import { Nullable } from './values.js';

export const ShortProductSchema = Type.Object(
  {
    idGame: Type.Integer(),
    enName: Type.String(),
    locName: Type.String(),
    image: Type.String(),
    idExpansion: Nullable(Type.Integer()),
    expansion: Nullable(Type.String()),
    abbreviation: Nullable(Type.String()),
    nr: Nullable(Type.String()),
    expIcon: Nullable(Type.Integer()),
    rarity: Nullable(Type.String()),
  },
  { $id: 'ArticleProduct', description: 'The short product inside an Article (reference §2.8).' },
);

/**
 * The short product inside an Article (reference §2.8): `locName` is the name in the article's
 * language. The detailed Product entity (GET /products/:id) has a mapper of its own.
 */
export function mapShortProduct(p: ProductFacts): Static<typeof ShortProductSchema> {
  return {
    idGame: p.idGame,
    enName: p.enName,
    locName: p.locName,
    image: p.image,
    idExpansion: p.idExpansion,
    expansion: p.expansionName,
    abbreviation: p.expansionAbbreviation,
    nr: p.number,
    expIcon: p.expansionIcon,
    rarity: p.rarity,
  };
}
