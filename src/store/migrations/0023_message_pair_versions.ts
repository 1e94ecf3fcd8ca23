import { type Kysely, sql } from 'kysely';
import { isSqlite, withoutRowid } from './helpers.js';

/**
 * A version per pair of users of the messages between them (`messagePairVersions`, the two ids
 * low first), raised by the database on every insert, update and delete of such a message, in the
 * writing transaction: a thread polled again keeps its page per version and reads one number
 * instead of its messages (`src/store/messages.ts`). Triggers rather than calls in the code, so no
 * writer of messages (sending, marking read, deleting, fixtures, tests) can miss one. A pair's row
 * is never deleted and its version only grows, so a version never names two states of a thread.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('messagePairVersions')
      .addColumn('idUserLow', 'integer', (c) => c.notNull())
      .addColumn('idUserHigh', 'integer', (c) => c.notNull())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('messagePairVersions_pk', ['idUserLow', 'idUserHigh']),
  ).execute();

  if (isSqlite(db)) {
    // Row triggers (SQLite has no other kind); an update never moves a message to another pair.
    const bump = (row: 'new' | 'old') =>
      `insert into "messagePairVersions" ("idUserLow", "idUserHigh", "version") ` +
      `values (min(${row}."idSender", ${row}."idReceiver"), max(${row}."idSender", ${row}."idReceiver"), 1) ` +
      `on conflict ("idUserLow", "idUserHigh") do update set "version" = "version" + 1;`;
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'old'],
      ['delete', 'old'],
    ] as const) {
      await sql
        .raw(
          `create trigger "messages_pair_version_${event}" after ${event} on "messages" begin ${bump(row)} end`,
        )
        .execute(db);
    }
    // An update that moved a message to another pair (none does) changes that pair too.
    await sql
      .raw(
        `create trigger "messages_pair_version_moved" after update of "idSender", "idReceiver" on "messages" ` +
          `when min(new."idSender", new."idReceiver") <> min(old."idSender", old."idReceiver") ` +
          `or max(new."idSender", new."idReceiver") <> max(old."idSender", old."idReceiver") begin ${bump('new')} end`,
      )
      .execute(db);
    return;
  }
  const bump = (row: 'NEW' | 'OLD') =>
    `insert into "messagePairVersions" ("idUserLow", "idUserHigh", "version") ` +
    `values (least(${row}."idSender", ${row}."idReceiver"), greatest(${row}."idSender", ${row}."idReceiver"), 1) ` +
    `on conflict ("idUserLow", "idUserHigh") do update set "version" = "messagePairVersions"."version" + 1;`;
  await sql
    .raw(
      `create function "bumpMessagePairVersion"() returns trigger language plpgsql as $$ begin ` +
        `if TG_OP <> 'INSERT' then ${bump('OLD')} end if; ` +
        `if TG_OP = 'INSERT' or least(NEW."idSender", NEW."idReceiver") <> least(OLD."idSender", OLD."idReceiver") ` +
        `or greatest(NEW."idSender", NEW."idReceiver") <> greatest(OLD."idSender", OLD."idReceiver") then ${bump('NEW')} end if; ` +
        `return null; end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger "messages_pair_version" after insert or update or delete on "messages" ` +
        `for each row execute function "bumpMessagePairVersion"()`,
    )
    .execute(db);
  // A truncation fires no row trigger: every pair moves on.
  await sql
    .raw(
      `create function "bumpAllMessagePairVersions"() returns trigger language plpgsql as $$ begin ` +
        `update "messagePairVersions" set "version" = "version" + 1; return null; end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger "messages_pair_versions_truncate" after truncate on "messages" ` +
        `for each statement execute function "bumpAllMessagePairVersions"()`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const event of ['insert', 'update', 'delete', 'moved']) {
      await sql.raw(`drop trigger "messages_pair_version_${event}"`).execute(db);
    }
  } else {
    await sql.raw(`drop trigger "messages_pair_version" on "messages"`).execute(db);
    await sql.raw(`drop trigger "messages_pair_versions_truncate" on "messages"`).execute(db);
    await sql.raw(`drop function "bumpMessagePairVersion"()`).execute(db);
    await sql.raw(`drop function "bumpAllMessagePairVersions"()`).execute(db);
  }
  await db.schema.dropTable('messagePairVersions').execute();
}
