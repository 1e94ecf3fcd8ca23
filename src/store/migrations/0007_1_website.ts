import type { Kysely } from 'kysely';

// The website (README, "The website"): sign-in sessions, password reset links and the request
// tokens of the third-party authorization flow. Each keeps only a SHA-256 of its random token, as
// apps and access tokens do: a database dump hands out no session, link or token.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webSessions')
    .addColumn('sessionHash', 'text', (c) => c.primaryKey())
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('expiresAt', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_by_user').on('webSessions').columns(['idUser']).execute();

  await db.schema
    .createTable('passwordResets')
    .addColumn('tokenHash', 'text', (c) => c.primaryKey())
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('expiresAt', 'bigint', (c) => c.notNull())
    .addColumn('usedAt', 'bigint')
    .execute();
  await db.schema.createIndex('password_resets_by_user').on('passwordResets').columns(['idUser']).execute();

  await db.schema
    .createTable('requestTokens')
    .addColumn('tokenHash', 'text', (c) => c.primaryKey())
    .addColumn('idApp', 'integer', (c) => c.notNull().references('apps.idApp'))
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('expiresAt', 'bigint', (c) => c.notNull())
    .addColumn('usedAt', 'bigint')
    .execute();
}
