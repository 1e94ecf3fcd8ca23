import { type Kysely, sql } from 'kysely';
import { withId } from './helpers.js';

// Users, apps, access tokens, coupons, settings and the events outbox.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('users'), 'idUser')
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('passwordHash', 'text')
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('isCommercial', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('maySell', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sellerActivation', 'integer', (c) => c.notNull().defaultTo(3))
    .addColumn('riskGroup', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lossPercentage', 'text', (c) => c.notNull().defaultTo('0 - 2%'))
    .addColumn('reputation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('shipsFast', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('onVacation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('idDisplayLanguage', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('firstName', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('lastName', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('company', 'text')
    .addColumn('addressName', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('addressExtra', 'text')
    .addColumn('street', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('zip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('phoneNumber', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('vat', 'text')
    .addColumn('legalInformation', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('registerDate', 'bigint', (c) => c.notNull())
    .addColumn('isActivated', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('moneyBalance', 'bigint', (c) =>
      c.notNull().defaultTo(0).check(sqlNonNegative('moneyBalance')),
    )
    .addColumn('bonusBalance', 'bigint', (c) =>
      c.notNull().defaultTo(0).check(sqlNonNegative('bonusBalance')),
    )
    .addColumn('providerRechargeAmount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('accountOwner', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('iban', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('bic', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('bankName', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sellCount', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('soldItems', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('avgShippingTime', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unsentShipments', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await withId(db, db.schema.createTable('apps'), 'idApp')
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tokenHash', 'text', (c) => c.notNull().unique())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('callbackUrl', 'text')
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('revokedAt', 'bigint')
    .execute();
  await db.schema.createIndex('apps_by_user').on('apps').columns(['idUser']).execute();

  await withId(db, db.schema.createTable('accessTokens'), 'idAccessToken')
    .addColumn('idApp', 'integer', (c) => c.notNull().references('apps.idApp'))
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('tokenHash', 'text', (c) => c.notNull().unique())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('expiresAt', 'bigint')
    .addColumn('revokedAt', 'bigint')
    .execute();
  await db.schema
    .createIndex('access_tokens_by_app_user')
    .on('accessTokens')
    .columns(['idApp', 'idUser'])
    .execute();

  await db.schema
    .createTable('coupons')
    .addColumn('couponCode', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('redeemedBy', 'integer', (c) => c.references('users.idUser'))
    .addColumn('redeemedAt', 'bigint')
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('events'), 'idEvent')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('deliveredAt', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lastError', 'text')
    .execute();
  await db.schema.createIndex('events_pending').on('events').columns(['deliveredAt', 'idEvent']).execute();
}

/** Balances never go negative, whatever the code above believes: guarded in SQL, across processes. */
function sqlNonNegative(column: string) {
  return sql.raw(`"${column}" >= 0`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['events', 'settings', 'coupons', 'accessTokens', 'apps', 'users']) {
    await db.schema.dropTable(t).execute();
  }
}
