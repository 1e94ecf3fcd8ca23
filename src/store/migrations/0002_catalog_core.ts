import { type Kysely, sql } from 'kysely';
import { withId } from './helpers.js';

// The tables several features share: the catalog, articles, the price guide, cart reservations and
// orders. Each feature adds tables only it uses in a migration of its own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('games')
    .addColumn('idGame', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('abbreviation', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('expansions')
    .addColumn('idExpansion', 'integer', (c) => c.primaryKey())
    .addColumn('idGame', 'integer', (c) => c.notNull().references('games.idGame'))
    .addColumn('enName', 'text', (c) => c.notNull())
    .addColumn('abbreviation', 'text', (c) => c.notNull())
    .addColumn('icon', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('releaseDate', 'bigint')
    .addColumn('isReleased', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('expansions_by_game').on('expansions').columns(['idGame']).execute();

  await db.schema
    .createTable('metaproducts')
    .addColumn('idMetaproduct', 'integer', (c) => c.primaryKey())
    .addColumn('enName', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('idProduct', 'integer', (c) => c.primaryKey())
    .addColumn('idGame', 'integer', (c) => c.notNull().references('games.idGame'))
    .addColumn('idExpansion', 'integer', (c) => c.references('expansions.idExpansion'))
    .addColumn('idMetaproduct', 'integer', (c) => c.references('metaproducts.idMetaproduct'))
    .addColumn('idCategory', 'integer', (c) => c.notNull())
    .addColumn('categoryName', 'text', (c) => c.notNull())
    .addColumn('enName', 'text', (c) => c.notNull())
    .addColumn('number', 'text')
    .addColumn('rarity', 'text')
    .addColumn('isSingle', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('dateAdded', 'bigint')
    .addColumn('image', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('products_by_expansion').on('products').columns(['idExpansion']).execute();
  await db.schema.createIndex('products_by_metaproduct').on('products').columns(['idMetaproduct']).execute();
  await db.schema.createIndex('products_by_game').on('products').columns(['idGame', 'idProduct']).execute();

  await db.schema
    .createTable('productNames')
    .addColumn('idProduct', 'integer', (c) => c.notNull().references('products.idProduct'))
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('productNames_pk', ['idProduct', 'idLanguage'])
    .execute();

  await withId(db, db.schema.createTable('articles'), 'idArticle')
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idProduct', 'integer', (c) => c.notNull().references('products.idProduct'))
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('comments', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('price', 'bigint', (c) => c.notNull().check(sql`"price" > 0`))
    .addColumn('condition', 'text')
    .addColumn('isFoil', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isSigned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isAltered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isPlayset', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isFirstEd', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isReverseHolo', 'integer', (c) => c.notNull().defaultTo(0))
    // Stock never goes negative, whatever races above it: the guard is in SQL.
    .addColumn('count', 'integer', (c) => c.notNull().check(sql`"count" >= 0`))
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('lastEdited', 'bigint', (c) => c.notNull())
    .execute();
  // The marketplace's cheapest-first page of one product, and a seller's stock in id order.
  await db.schema
    .createIndex('articles_by_product_price')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle'])
    .execute();
  await db.schema.createIndex('articles_by_user').on('articles').columns(['idUser', 'idArticle']).execute();
  await db.schema
    .createIndex('articles_by_user_product')
    .on('articles')
    .columns(['idUser', 'idProduct'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'orderArticles',
    'orders',
    'reservationArticles',
    'reservations',
    'priceGuides',
    'articles',
    'productNames',
    'products',
    'metaproducts',
    'expansions',
    'games',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
