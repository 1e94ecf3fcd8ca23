import { type Kysely, sql } from 'kysely';
import { withId } from './helpers.js';

// Messages between users, the system accounts that send the marketplace's own messages, and wants
// lists with their items.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per message, seen from both sides: each side deletes its own copy only (a flag), and the
  // row goes when both have. `seq` orders a thread; `idMessage` is the id the API shows.
  await withId(db, db.schema.createTable('messages'), 'seq')
    .addColumn('idMessage', 'text', (c) => c.notNull().unique())
    .addColumn('idSender', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idReceiver', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('date', 'bigint', (c) => c.notNull())
    // Unread by the receiver; a sent message is never unread for its sender.
    .addColumn('unread', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('senderDeleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('receiverDeleted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // A thread is read from both directions; the account's unread counter and the find request read
  // the receiver's side.
  await db.schema
    .createIndex('messages_by_pair')
    .on('messages')
    .columns(['idSender', 'idReceiver', 'seq'])
    .execute();
  await db.schema
    .createIndex('messages_by_receiver_pair')
    .on('messages')
    .columns(['idReceiver', 'idSender', 'seq'])
    .execute();
  await db.schema.createIndex('messages_unread').on('messages').columns(['idReceiver', 'unread']).execute();
  await db.schema
    .createIndex('messages_received_by_date')
    .on('messages')
    .columns(['idReceiver', 'date'])
    .execute();

  // Accounts the marketplace itself acts as (the sender of wants alerts and later notices), by role.
  await db.schema
    .createTable('systemAccounts')
    .addColumn('role', 'text', (c) => c.primaryKey())
    .addColumn('idUser', 'integer', (c) => c.notNull().unique().references('users.idUser'))
    .execute();

  await withId(db, db.schema.createTable('wantslists'), 'idWantslist')
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idGame', 'integer', (c) => c.notNull().references('games.idGame'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('wantslists_by_user')
    .on('wantslists')
    .columns(['idUser', 'idWantslist'])
    .execute();

  // A want is either a product or a metaproduct (any printing of a card). Filters: idLanguages is a
  // comma-separated list (empty: any language); a null flag means "either".
  await withId(db, db.schema.createTable('wants'), 'seq')
    .addColumn('idWant', 'text', (c) => c.notNull().unique())
    .addColumn('idWantslist', 'integer', (c) => c.notNull().references('wantslists.idWantslist'))
    .addColumn('idProduct', 'integer', (c) => c.references('products.idProduct'))
    .addColumn('idMetaproduct', 'integer', (c) => c.references('metaproducts.idMetaproduct'))
    .addColumn('count', 'integer', (c) => c.notNull().check(sql`"count" > 0`))
    // Cents; 0 is "no wish price".
    .addColumn('wishPrice', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`"wishPrice" >= 0`),
    )
    .addColumn('mailAlert', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('idLanguages', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('minCondition', 'text', (c) => c.notNull())
    .addColumn('isFoil', 'integer')
    .addColumn('isSigned', 'integer')
    .addColumn('isAltered', 'integer')
    .addColumn('isFirstEd', 'integer')
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addCheckConstraint('wants_one_target', sql`("idProduct" is null) <> ("idMetaproduct" is null)`)
    .execute();
  await db.schema.createIndex('wants_by_list').on('wants').columns(['idWantslist', 'seq']).execute();
  // The mail alert looks up the wants of a newly listed article's product and metaproduct.
  await db.schema.createIndex('wants_by_product').on('wants').columns(['idProduct', 'mailAlert']).execute();
  await db.schema
    .createIndex('wants_by_metaproduct')
    .on('wants')
    .columns(['idMetaproduct', 'mailAlert'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['wants', 'wantslists', 'systemAccounts', 'messages']) {
    await db.schema.dropTable(t).execute();
  }
}
