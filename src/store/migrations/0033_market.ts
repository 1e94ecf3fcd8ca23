import type { Kysely } from 'kysely';
import { withId, withoutRowid } from './helpers.js';

/**
 * The living market (issue 34, src/domain/market/): which users are simulated traders (the market
 * acts for these and no one else), the log of every simulated action with the seed position it
 * drew from, and each product's hidden fair value as the market last left it (the market page and
 * `market status` show it beside the price guide).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('marketTraders')
      .addColumn('idUser', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('idApp', 'integer', (c) => c.notNull())
      .addColumn('scenario', 'text', (c) => c.notNull())
      .addColumn('createdAt', 'bigint', (c) => c.notNull()),
  ).execute();
  await withId(db, db.schema.createTable('marketActions'), 'idAction')
    .addColumn('seed', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('idUser', 'integer')
    .addColumn('trader', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('seedPosition', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .execute();
  await withoutRowid(
    db,
    db.schema
      .createTable('marketValues')
      .addColumn('idProduct', 'integer', (c) => c.primaryKey())
      .addColumn('fairValue', 'integer', (c) => c.notNull())
      .addColumn('anchor', 'integer', (c) => c.notNull())
      .addColumn('updatedAt', 'bigint', (c) => c.notNull()),
  ).execute();
}
