import type { Kysely } from 'kysely';
import { withoutRowid } from './helpers.js';

// OAuth nonces, so a signed request cannot be replayed after a restart or on another instance that
// shares the database (RFC 5849 §3.3). A nonce is unique per timestamp and credentials; keyed by
// the timestamp first, so new rows land at the end of the index and pruning is a range delete.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('oauthNonces')
      .addColumn('timestamp', 'bigint', (c) => c.notNull())
      .addColumn('nonceKey', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('oauth_nonces_pk', ['timestamp', 'nonceKey']),
  ).execute();
}
