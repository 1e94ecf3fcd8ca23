import { type Kysely, sql } from 'kysely';
import { isSqlite, withId } from './helpers.js';

// Stock management: export jobs and their files, and the indexes stock reads and writes need.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The stock of a seller with copies in carts: which of their articles are reserved.
  await db.schema.createIndex('reservations_by_seller').on('reservations').columns(['idSeller']).execute();

  // Stock writes look for an equal article to merge into by (seller, product, price); this index
  // answers that in one probe per article and still serves every (seller, product) lookup, so it
  // replaces the narrower one.
  await db.schema
    .createIndex('articles_by_user_product_price')
    .on('articles')
    .columns(['idUser', 'idProduct', 'price'])
    .execute();
  await db.schema.dropIndex('articles_by_user_product').ifExists().execute();

  // An export request (`POST /exports/stock`, `POST /exports/userOffers/:idUser`): built by the
  // outbox handler, listed for 24 hours, its file downloadable through an unguessable link.
  await withId(db, db.schema.createTable('exports'), 'idRequest')
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resourceId', 'integer', (c) => c.notNull())
    .addColumn('idGame', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('startedAt', 'bigint', (c) => c.notNull())
    .addColumn('buildingSince', 'bigint')
    .addColumn('finishedAt', 'bigint')
    .addColumn('expiresAt', 'bigint', (c) => c.notNull())
    .addColumn('articleCount', 'integer')
    .addColumn('size', 'bigint')
    .execute();
  await db.schema
    .createIndex('exports_by_user')
    .on('exports')
    .columns(['idUser', 'type', 'startedAt'])
    .execute();
  await db.schema.createIndex('exports_by_expiry').on('exports').columns(['expiresAt']).execute();

  // The gzipped file, in pieces: written and read as streams, never held whole in memory.
  await db.schema
    .createTable('exportChunks')
    .addColumn('idRequest', 'integer', (c) => c.notNull().references('exports.idRequest').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', isSqlite(db) ? 'blob' : sql`bytea`, (c) => c.notNull())
    .addPrimaryKeyConstraint('exportChunks_pk', ['idRequest', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('articles_by_user_product')
    .on('articles')
    .columns(['idUser', 'idProduct'])
    .execute();
  await db.schema.dropIndex('articles_by_user_product_price').execute();
  await db.schema.dropTable('exportChunks').execute();
  await db.schema.dropTable('exports').execute();
  await db.schema.dropIndex('reservations_by_seller').ifExists().execute();
}
