import type { Executor } from './db.js';
import { type PackedKind, packedRow } from './packed.js';
import { prepared, preparedBySize, preparedFirst } from './prepared.js';
import type { NewUser, User, UserUpdate } from './schema.js';

export async function insertUser(db: Executor, user: NewUser): Promise<User> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

const userById = prepared(
  (db, idUser: number) => db.selectFrom('users').selectAll().where('idUser', '=', idUser),
  [0],
);

export async function findUserById(db: Executor, idUser: number): Promise<User | undefined> {
  return (await userById(db, idUser))[0];
}

/**
 * What another user is shown of a user (the User entity, its home address, the contact details an
 * order's counterparty sees): `src/mappers/user.ts` reads these and nothing else, so the lists that
 * show many users read only these columns (not the password hash, balances and bank details).
 */
export const SHOWN_USER_COLUMNS = [
  'idUser',
  'username',
  'registerDate',
  'isCommercial',
  'maySell',
  'company',
  'firstName',
  'lastName',
  'addressName',
  'addressExtra',
  'street',
  'zip',
  'city',
  'country',
  'phoneNumber',
  'email',
  'vat',
  'legalInformation',
  'riskGroup',
  'lossPercentage',
  'unsentShipments',
  'reputation',
  'shipsFast',
  'sellCount',
  'soldItems',
  'avgShippingTime',
  'onVacation',
] as const satisfies ReadonlyArray<keyof User>;
export type ShownUser = Pick<User, (typeof SHOWN_USER_COLUMNS)[number]>;

const shownById = prepared(
  (db, idUser: number) => db.selectFrom('users').select(SHOWN_USER_COLUMNS).where('idUser', '=', idUser),
  [0],
);

/**
 * A user as others see them (a message thread's partner), read as one packed text (`packedRow`):
 * 27 values handed over one by one cost better-sqlite3 more than the row's reading.
 */
export async function findShownUserById(db: Executor, idUser: number): Promise<ShownUser | undefined> {
  const [packed] = await packedShownById(db, idUser);
  if (packed === undefined) return undefined;
  // The rare user whose texts hold the separator is read the ordinary way.
  return packedShownUser.unpack(packed) ?? (await shownById(db, idUser))[0];
}

const shownByIds = preparedBySize(
  (db: Executor, ids: number[]) =>
    db.selectFrom('users').select(SHOWN_USER_COLUMNS).where('idUser', 'in', ids).compile(),
  (ids) => ids.length,
  (ids) => ids,
);

/** The shown columns packed into one text (`packedRow`): a page of 100 orders reads 101 users. */
const SHOWN_USER_KINDS = {
  idUser: 'integer',
  username: 'text',
  registerDate: 'integer',
  isCommercial: 'integer',
  maySell: 'integer',
  company: 'text?',
  firstName: 'text',
  lastName: 'text',
  addressName: 'text',
  addressExtra: 'text?',
  street: 'text',
  zip: 'text',
  city: 'text',
  country: 'text',
  phoneNumber: 'text',
  email: 'text',
  vat: 'text?',
  legalInformation: 'text',
  riskGroup: 'integer',
  lossPercentage: 'text',
  unsentShipments: 'integer',
  reputation: 'integer',
  shipsFast: 'integer',
  sellCount: 'integer',
  soldItems: 'integer',
  avgShippingTime: 'integer',
  onVacation: 'integer',
} as const satisfies Record<(typeof SHOWN_USER_COLUMNS)[number], PackedKind>;
/** Exported for the statements that read a shown user beside other values (a thread's partner). */
export const packedShownUser = packedRow<ShownUser>(Object.entries(SHOWN_USER_KINDS));

const packedShownById = preparedFirst<string, [idUser: number]>(
  (db, idUser) =>
    db.selectFrom('users').select(packedShownUser.select().as('packed')).where('idUser', '=', idUser),
  [0],
  'packed',
);

const packedShownByIds = preparedBySize(
  (db: Executor, ids: number[]) =>
    db
      .selectFrom('users')
      .select(['idUser', packedShownUser.select().as('packed')])
      .where('idUser', 'in', ids)
      .compile(),
  (ids) => ids.length,
  (ids) => ids,
  { direct: true },
);

/**
 * Users by id as others see them (the parties of a page of orders, the sellers of a page of
 * offers); repeats are fine.
 */
export async function shownUsersByIds(db: Executor, idUsers: number[]): Promise<Map<number, ShownUser>> {
  const ids = [...new Set(idUsers)];
  if (ids.length === 0) return new Map();
  const rows = (await packedShownByIds(db, ids)).rows;
  const users = new Map<number, ShownUser>();
  // The rare user whose texts hold the separator is read the ordinary way.
  const unpacked: number[] = [];
  for (const r of rows) {
    const user = packedShownUser.unpack(r.packed);
    if (user === undefined) unpacked.push(r.idUser);
    else users.set(r.idUser, user);
  }
  if (unpacked.length > 0) {
    for (const u of (await shownByIds(db, unpacked)).rows) users.set(u.idUser, u);
  }
  return users;
}

/** Users by id, every column (the parties of reservations, the sellers of wanted offers); repeats are fine. */
export async function usersByIds(db: Executor, idUsers: number[]): Promise<Map<number, User>> {
  const ids = [...new Set(idUsers)];
  if (ids.length === 0) return new Map();
  const rows = (await usersIn(db, ids)).rows;
  return new Map(rows.map((u) => [u.idUser, u]));
}

// Carts and wants read their parties here: compiled once per number of ids.
const usersIn = preparedBySize(
  (db: Executor, ids: number[]) => db.selectFrom('users').selectAll().where('idUser', 'in', ids).compile(),
  (ids) => ids.length,
  (ids) => ids,
);

export async function findUserByUsername(db: Executor, username: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

/**
 * `:idUser` in the API is an id or an exact username. Digits beyond the 32-bit id column are no id
 * (PostgreSQL would refuse the comparison), so they can only be a username.
 */
export async function findUserByIdOrName(db: Executor, idOrName: string): Promise<User | undefined> {
  if (/^\d{1,10}$/.test(idOrName) && Number(idOrName) <= 2_147_483_647) {
    const byId = await findUserById(db, Number(idOrName));
    if (byId) return byId;
  }
  return findUserByUsername(db, idOrName);
}

export async function updateUser(db: Executor, idUser: number, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set(changes).where('idUser', '=', idUser).execute();
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Adds (or, negative, takes) cents; refuses in SQL to take more than the balance holds. */
export async function addMoneyBalance(db: Executor, idUser: number, cents: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set((eb) => ({ moneyBalance: eb('moneyBalance', '+', cents) }))
    .where('idUser', '=', idUser)
    .where((eb) => eb('moneyBalance', '>=', -cents))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function addBonusBalance(db: Executor, idUser: number, cents: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set((eb) => ({ bonusBalance: eb('bonusBalance', '+', cents) }))
    .where('idUser', '=', idUser)
    .where((eb) => eb('bonusBalance', '>=', -cents))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** A username another user already has, whatever its case (registration refuses look-alikes). */
export async function findUserByUsernameAnyCase(db: Executor, username: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
    .executeTakeFirst();
}

export async function setPasswordHash(db: Executor, idUser: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ passwordHash }).where('idUser', '=', idUser).execute();
}
