import { badRequest } from '../errors.js';
import type { NewUser, User } from '../store/schema.js';
import { addMoneyBalance, findUserByUsername, insertUser } from '../store/users.js';
import { ACCOUNT_TYPES, type AccountType } from './catalog.js';
import type { DomainContext } from './context.js';

export interface NewUserInput {
  username: string;
  /** ISO 3166 alpha-2, except Germany, which the API spells `D`. */
  country: string;
  accountType: AccountType;
  balanceCents?: number;
  firstName?: string;
  lastName?: string;
  company?: string;
  street?: string;
  zip?: string;
  city?: string;
  email?: string;
  phoneNumber?: string;
}

/** What every account starts with: no history, no bonus or bank details, not on vacation. */
export const NEW_ACCOUNT = {
  passwordHash: null,
  riskGroup: 0,
  lossPercentage: '0 - 2%',
  reputation: 0,
  shipsFast: 0,
  onVacation: 0,
  idDisplayLanguage: 1,
  addressExtra: null,
  vat: null,
  isActivated: 1,
  bonusBalance: 0,
  providerRechargeAmount: 0,
  iban: '',
  bic: '',
  bankName: '',
  sellCount: 0,
  soldItems: 0,
  avgShippingTime: 0,
  unsentShipments: 0,
} as const satisfies Partial<NewUser>;

export function parseAccountType(text: string): AccountType {
  const t = text.toLowerCase();
  if (t === 'commercial') return 'professional';
  if (t in ACCOUNT_TYPES) return t as AccountType;
  throw badRequest(`Unknown account type "${text}": use private, professional or powerseller.`);
}

/** The API writes Germany as `D`; everything else is ISO 3166 alpha-2 in upper case. */
export function normalizeCountry(text: string): string {
  const c = text.trim().toUpperCase();
  if (c === 'DE') return 'D';
  if (!/^[A-Z]{1,2}$/.test(c)) throw badRequest(`"${text}" is not a country code (use e.g. D, FR, IT, GB).`);
  return c;
}

export async function createUser(ctx: DomainContext, input: NewUserInput): Promise<User> {
  const username = input.username.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{2,39}$/.test(username)) {
    throw badRequest(
      'A username has 3 to 40 letters, digits, dots, dashes or underscores, starting with a letter or digit.',
    );
  }
  const balance = input.balanceCents ?? 0;
  if (!Number.isInteger(balance) || balance < 0) throw badRequest('The starting balance cannot be negative.');
  const country = normalizeCountry(input.country);
  return ctx.database.transaction(async (tx) => {
    if (await findUserByUsername(tx, username)) throw badRequest(`The username "${username}" is taken.`);
    const name = [input.firstName, input.lastName].filter(Boolean).join(' ') || username;
    return insertUser(tx, {
      ...NEW_ACCOUNT,
      username,
      country,
      isCommercial: ACCOUNT_TYPES[input.accountType],
      maySell: 1,
      sellerActivation: 3,
      firstName: input.firstName ?? username,
      lastName: input.lastName ?? '',
      company: input.company ?? null,
      addressName: name,
      street: input.street ?? '',
      zip: input.zip ?? '',
      city: input.city ?? '',
      email: input.email ?? `${username.toLowerCase()}@example.invalid`,
      phoneNumber: input.phoneNumber ?? '',
      legalInformation: '',
      registerDate: ctx.clock.now(),
      moneyBalance: balance,
      accountOwner: name,
    });
  });
}

/** Tops up a user's money balance (an operator action: money enters the marketplace here). */
export async function fundUser(ctx: DomainContext, idUser: number, cents: number): Promise<void> {
  if (!Number.isInteger(cents) || cents <= 0) throw badRequest('The amount must be greater than 0.');
  await ctx.database.transaction(async (tx) => {
    await addMoneyBalance(tx, idUser, cents);
  });
}
