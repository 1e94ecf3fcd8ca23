import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

// The request log (README, "The request log"): one row per API request, for the user it acted for
// (or, when authentication failed, the owner of the app or token the header named). Bounded per
// user by REQUEST_LOG_ROWS, pruned by the writer, so the index below is also what pruning walks.
// The failure columns stay null on successful requests: most rows are a few dozen bytes.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('requestLog'), 'idRequest')
    .addColumn('idUser', 'integer', (c) => c.notNull())
    .addColumn('idApp', 'integer')
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('durationMicros', 'integer', (c) => c.notNull())
    .addColumn('internalErrorCode', 'text')
    .addColumn('origin', 'text')
    .addColumn('authorization', 'text')
    .addColumn('requestBody', 'text')
    .addColumn('responseBody', 'text')
    .addColumn('baseString', 'text')
    .execute();
  await db.schema
    .createIndex('request_log_by_user')
    .on('requestLog')
    .columns(['idUser', 'idRequest'])
    .execute();
}
