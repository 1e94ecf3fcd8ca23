import type { Kysely } from 'kysely';

// Orders a seller sent and the buyer never got (state `lost`), behind the seller's lossPercentage.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sellerStats')
    .addColumn('lostOrders', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
