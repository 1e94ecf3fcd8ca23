import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

// Injected faults (sandbox): failures a client's test suite asks for on purpose (`cardbazaar faults
// add`). A table rather than process state so that every instance sharing the database applies the
// same faults, and the CLI can add them beside a running server.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('faults'), 'idFault')
    // null: any method
    .addColumn('method', 'text')
    .addColumn('path', 'text', (c) => c.notNull())
    // null: no answer of its own (a delay only, or a dropped connection)
    .addColumn('status', 'integer')
    .addColumn('description', 'text')
    .addColumn('rate', 'double precision', (c) => c.notNull())
    .addColumn('latencyMs', 'integer', (c) => c.notNull())
    .addColumn('drop', 'integer', (c) => c.notNull())
    .addColumn('seed', 'bigint')
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .execute();
}
