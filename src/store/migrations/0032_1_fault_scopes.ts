import type { Kysely } from 'kysely';

// Faults scoped and counted (docs/testing-your-client.md, "Break it on purpose"): `remaining` counts
// down the "next N matching requests" in the database, so that every process on it shares the one
// count (null: no count); `idApp`/`idUser` narrow a fault to one app or one user (resolved when the
// fault is added; `app`/`user` keep what was given, for the list); `body` spoils the answer's body
// ('truncated' or 'malformed'); `expiresAt` ends it on the marketplace clock.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, type] of [
    ['times', 'integer'],
    ['remaining', 'integer'],
    ['app', 'text'],
    ['idApp', 'integer'],
    ['user', 'text'],
    ['idUser', 'integer'],
    ['body', 'text'],
    ['expiresAt', 'bigint'],
  ] as const) {
    await db.schema.alterTable('faults').addColumn(name, type).execute();
  }
}
