import type { Kysely } from 'kysely';

/**
 * The price guide's asking prices (`offerFigures`: the lowest price in EX or better among them) are
 * recomputed for every product a stock write lists, a hundred products at once for a POST /stock
 * of 100 articles: with the condition in `articles_offers` beside what it holds, they read the index
 * alone and each seller's row, not one table row per offer as well (about three quarters of that
 * statement's time on the bench's 100-article listings). The index keeps its name and its leading
 * columns, so every other read of it stays as it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('articles_offers').execute();
  await db.schema
    .createIndex('articles_offers')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle', 'count', 'idUser', 'isFoil', 'condition'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('articles_offers').execute();
  await db.schema
    .createIndex('articles_offers')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle', 'count', 'idUser', 'isFoil'])
    .execute();
}
