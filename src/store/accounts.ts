import { type Expression, type ExpressionBuilder, sql } from 'kysely';
import { directSqlite, type Executor } from './db.js';
import { prepared, preparedBySize } from './prepared.js';
import type { DB, User } from './schema.js';

/** The account's numbers that live in other features' tables. */
export interface AccountCounters {
  /** Copies in the user's shopping cart (their reservations). */
  articlesInShoppingCart: number;
  /** Messages the user received and has not read (a deleted message is never unread). */
  unreadMessages: number;
  /** Cents owed for orders bought and not yet paid (merged orders count once, in the survivor). */
  unpaidAmount: number;
}

/**
 * The user's columns the account shows (and the rules that load it read): not the password hash,
 * the company or the unsent shipments, which SQLite would otherwise read and convert on every
 * GET /account for nothing.
 */
const ACCOUNT_COLUMNS = [
  'u.idUser',
  'u.username',
  'u.country',
  'u.isCommercial',
  'u.maySell',
  'u.sellerActivation',
  'u.riskGroup',
  'u.lossPercentage',
  'u.reputation',
  'u.shipsFast',
  'u.onVacation',
  'u.idDisplayLanguage',
  'u.firstName',
  'u.lastName',
  'u.addressName',
  'u.addressExtra',
  'u.street',
  'u.zip',
  'u.city',
  'u.email',
  'u.phoneNumber',
  'u.vat',
  'u.legalInformation',
  'u.registerDate',
  'u.isActivated',
  'u.moneyBalance',
  'u.bonusBalance',
  'u.providerRechargeAmount',
  'u.accountOwner',
  'u.iban',
  'u.bic',
  'u.bankName',
  'u.sellCount',
  'u.soldItems',
  'u.avgShippingTime',
] as const;

/** The user as the account loads them. */
export type AccountUser = Omit<User, 'passwordHash' | 'company' | 'unsentShipments'>;

type AccountEb = ExpressionBuilder<DB & { u: DB['users'] }, 'u'>;

/**
 * The three counters of the account, each answered by an index (reservations by buyer,
 * messages_unread, the partial orders_by_buyer_state), for the user each argument names: a
 * statement's parameter, or the row's own `u.idUser` when several users are read at once.
 */
function counterColumns(
  eb: AccountEb,
  idBuyer: number | Expression<number>,
  idReceiver: number | Expression<number>,
  idOrderBuyer: number | Expression<number>,
) {
  return [
    eb
      .selectFrom('reservationArticles as ra')
      .innerJoin('reservations as r', 'r.idReservation', 'ra.idReservation')
      .select(sql<number>`coalesce(sum(ra."count"), 0)`.as('n'))
      .where('r.idBuyer', '=', idBuyer)
      .as('c_articlesInShoppingCart'),
    eb
      .selectFrom('messages')
      .select(eb.fn.countAll<number>().as('n'))
      .where('messages.idReceiver', '=', idReceiver)
      .where('unread', '=', sql.lit(1))
      // A message the receiver deleted is gone from their side, read or not.
      .where('receiverDeleted', '=', sql.lit(0))
      .as('c_unreadMessages'),
    eb
      .selectFrom('orders')
      .select(sql<number>`coalesce(sum("totalValue"), 0)`.as('n'))
      .where('orders.idBuyer', '=', idOrderBuyer)
      .where('state', '=', sql.lit('bought'))
      .where('wasMergedInto', 'is', null)
      .as('c_unpaidAmount'),
  ] as const;
}

/**
 * GET /account is the API's hot path: the user's row and the three counters come from one
 * statement, compiled once. The literals stay literals so the prepared statement takes exactly the
 * user's id, four times.
 */
const accountRow = prepared(
  (db, idUser: number, idBuyer: number, idReceiver: number, idOrderBuyer: number) =>
    db
      .selectFrom('users as u')
      .select(ACCOUNT_COLUMNS)
      .select((eb) => counterColumns(eb, idBuyer, idReceiver, idOrderBuyer))
      .where('u.idUser', '=', idUser),
  [0, 0, 0, 0],
);

/**
 * The same row for several users at once, each counter correlated to its row: the account reads
 * of one turn of the event loop in one statement (`findAccount`). Padded to a power of two ids (a
 * repeated id in an `in` list changes nothing), so at most seven texts are ever prepared.
 */
const accountRows = preparedBySize(
  (db, ids: readonly number[]) =>
    db
      .selectFrom('users as u')
      .select(ACCOUNT_COLUMNS)
      .select((eb) => {
        const row = eb.ref('u.idUser');
        return counterColumns(eb, row, row, row);
      })
      .where('u.idUser', 'in', ids)
      .compile(),
  (ids) => ids.length,
  (ids) => ids,
);

/** Most users one batched read asks for. */
const MAX_ACCOUNT_BATCH = 64;

type AccountRow = Awaited<ReturnType<typeof accountRow>>[number];

interface AccountWaiting {
  idUser: number;
  resolve: (row: AccountRow | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * The account reads waiting for the end of this turn, by database. On PostgreSQL every statement
 * is a round trip whose socket write and read cost this process more than building the answer (a
 * profile of `GET /account`: `writev` a third of the time), and the requests a turn lets through
 * (their nonces were recorded by one statement, `DatabaseNonceStore`) all read an account next.
 * Each read still starts after its request arrived, and one statement reads one snapshot, so what
 * it answers is what a read of its own would have.
 */
const accountBatches = new WeakMap<Executor, AccountWaiting[]>();

function readBatched(db: Executor, idUser: number): Promise<AccountRow | undefined> {
  return new Promise((resolve, reject) => {
    let batch = accountBatches.get(db);
    if (!batch) {
      const waiting: AccountWaiting[] = [];
      batch = waiting;
      accountBatches.set(db, waiting);
      setImmediate(() => {
        accountBatches.delete(db);
        flushAccounts(db, waiting);
      });
    }
    batch.push({ idUser, resolve, reject });
  });
}

function flushAccounts(db: Executor, waiting: AccountWaiting[]): void {
  const ids = [...new Set(waiting.map((w) => w.idUser))];
  for (let i = 0; i < ids.length; i += MAX_ACCOUNT_BATCH) {
    const chunk = ids.slice(i, i + MAX_ACCOUNT_BATCH);
    const asked = new Set(chunk);
    const mine = waiting.filter((w) => asked.has(w.idUser));
    let size = 1;
    while (size < chunk.length) size *= 2;
    const padded = chunk.concat(Array(size - chunk.length).fill(chunk[chunk.length - 1]));
    accountRows(db, padded).then(
      ({ rows }) => {
        const byId = new Map<number, AccountRow>();
        for (const row of rows as AccountRow[]) byId.set(Number(row.idUser), row);
        const given = new Set<number>();
        for (const w of mine) {
          const row = byId.get(w.idUser);
          // Each request its own row object, as a read of its own would give it.
          if (row === undefined || !given.has(w.idUser)) {
            given.add(w.idUser);
            w.resolve(row);
          } else {
            w.resolve({ ...row });
          }
        }
      },
      (err: unknown) => mine.forEach((w) => w.reject(err)),
    );
  }
}

/** The user and their counters, or undefined when there is no such user. */
export async function findAccount(
  db: Executor,
  idUser: number,
): Promise<{ user: AccountUser; counters: AccountCounters } | undefined> {
  // Inside a transaction, or straight on SQLite's connection (synchronous, no round trip), alone.
  const row =
    db.isTransaction || directSqlite(db)
      ? (await accountRow(db, idUser, idUser, idUser, idUser))[0]
      : await readBatched(db, idUser);
  if (!row) return undefined;
  return {
    // The row itself, its three counter columns still on it: copying the other columns out (an
    // object rest) built a dictionary-mode object on every request, slow to make and to read.
    user: row as AccountUser,
    counters: {
      articlesInShoppingCart: Number(row.c_articlesInShoppingCart ?? 0),
      unreadMessages: Number(row.c_unreadMessages ?? 0),
      unpaidAmount: Number(row.c_unpaidAmount ?? 0),
    },
  };
}
