import { badRequest } from '../errors.js';
import type { NewUser, User } from '../store/schema.js';
import { addMoneyBalance, findUserByUsernameAnyCase, insertUser } from '../store/users.js';
import { ACCOUNT_TYPES, type AccountType } from './catalog.js';
import type { DomainContext } from './context.js';
import { initialSellerActivation, type SellerActivationStart } from './seller-activation.js';

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
  /**
   * Where the seller activation starts (`seller-activation.ts`): activated (3, the default, for
   * users the operator creates and the demo data) or not (0: an account registered on the website,
   * or `user create --seller-activation 0`), which must be activated before it may sell.
   */
  sellerActivation?: SellerActivationStart;
  /** A hash from `auth/passwords.ts` (the website's registration); none: the user cannot sign in. */
  passwordHash?: string;
  /** 1 English … 5 Italian (the language the website was used in at registration). */
  idDisplayLanguage?: number;
}

/** 3 to 40 letters, digits, dots, dashes or underscores, starting with a letter or digit. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{2,39}$/;
export const USERNAME_RULE =
  'A username has 3 to 40 letters, digits, dots, dashes or underscores, starting with a letter or digit.';

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

/** ISO 3166-1 alpha-2 (with XK, Kosovo, which addresses use); Germany is stored as `D`. */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  `AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
  BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ D DJ DK DM DO DZ EC EE
  EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
  HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
  LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
  NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
  SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
  TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`.split(/\s+/),
);

/** `DE` and `de` mean Germany (`D`), `UK` Great Britain (`GB`); anything not a country is a 400. */
export function normalizeCountry(text: string): string {
  let c = text.trim().toUpperCase();
  if (c === 'DE') c = 'D';
  if (c === 'UK') c = 'GB';
  if (!COUNTRY_CODES.has(c)) {
    throw badRequest(`"${text}" is not a country code (use e.g. D, FR, IT, GB).`, {
      field: 'country',
      code: 'invalid_country',
    });
  }
  return c;
}

export async function createUser(ctx: DomainContext, input: NewUserInput): Promise<User> {
  const username = input.username.trim();
  if (!USERNAME_PATTERN.test(username)) {
    throw badRequest(USERNAME_RULE, { field: 'username', code: 'invalid_username' });
  }
  const balance = input.balanceCents ?? 0;
  if (!Number.isInteger(balance) || balance < 0) throw badRequest('The starting balance cannot be negative.');
  const country = normalizeCountry(input.country);
  return ctx.database.transaction(async (tx) => {
    // Names that differ only in case are one name to people, so the second is taken too.
    if (await findUserByUsernameAnyCase(tx, username)) {
      throw badRequest(`The username "${username}" is taken.`, { field: 'username', code: 'username_taken' });
    }
    const name = [input.firstName, input.lastName].filter(Boolean).join(' ') || username;
    return insertUser(tx, {
      ...NEW_ACCOUNT,
      passwordHash: input.passwordHash ?? null,
      idDisplayLanguage: input.idDisplayLanguage ?? NEW_ACCOUNT.idDisplayLanguage,
      username,
      country,
      isCommercial: ACCOUNT_TYPES[input.accountType],
      ...initialSellerActivation(input.sellerActivation),
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
