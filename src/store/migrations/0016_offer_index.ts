import type { Kysely } from 'kysely';

/**
 * A product's offers walk `articles` cheapest first and keep those with copies whose seller is not
 * on vacation, for a page and for the capped total of `Content-Range`. With the count and the
 * seller in the index beside (product, price, id), the walk reads the index alone and only the
 * seller's row besides: no table row per offer (about half the cost of a page's two walks). It
 * replaces `articles_by_product_price`, a prefix of it, which nothing needs beside it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('articles_offers')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle', 'count', 'idUser'])
    .execute();
  await db.schema.dropIndex('articles_by_product_price').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('articles_by_product_price')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle'])
    .execute();
  await db.schema.dropIndex('articles_offers').execute();
}
