import type { ProductFacts } from '../store/articles.js';

/**
 * The short product inside an Article (reference §2.8): `locName` is the name in the article's
 * language. The detailed Product entity (GET /products/:id) has a mapper of its own.
 */
export function mapShortProduct(p: ProductFacts) {
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
