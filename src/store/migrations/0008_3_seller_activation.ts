import type { Kysely } from 'kysely';

// Seller activation (reference §1.2, §2.1): the bank details a user gave, the two small transfers
// made to that account and when they arrive. Users already in the database keep their
// `sellerActivation` and `maySell` as they are (activated, by the foundation's defaults).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sellerActivations')
    .addColumn('idUser', 'integer', (c) => c.primaryKey().references('users.idUser'))
    .addColumn('requestedAt', 'bigint', (c) => c.notNull())
    .addColumn('transfersAt', 'bigint', (c) => c.notNull())
    .addColumn('transfer1', 'bigint', (c) => c.notNull())
    .addColumn('transfer2', 'bigint', (c) => c.notNull())
    .addColumn('failedAttempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
