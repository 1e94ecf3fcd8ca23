import type { Kysely } from 'kysely';

// Clients with the live host built in (README, "Clients with the live host built in"): which live
// host a request's signature verified over, so the request log can say it. Null for the server's
// own URL, which is every request outside the sandbox's live hosts.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requestLog').addColumn('signedOver', 'text').execute();
}
