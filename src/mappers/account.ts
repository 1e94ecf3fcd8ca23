import type { AccountView, CouponResult } from '../domain/account.js';
import { type Static, Type } from '@sinclair/typebox';
import { CompiledTree, SharedTree, type Tree } from '../http/xml.js';
import { AddressSchema, addressXml, mapHomeAddress } from './address.js';
import { boolXml, intXml, moneyXml, tag, textXml, timestampXml } from './compiled-xml.js';
import {
  bool,
  BoolSchema,
  link,
  type Link,
  LinksSchema,
  money,
  MoneySchema,
  Nullable,
  timestamp,
  TimestampSchema,
} from './values.js';

export const AccountSchema = Type.Object(
  {
    idUser: Type.Integer(),
    username: Type.String(),
    country: Type.String(),
    isCommercial: Type.Integer({ description: '0 private, 1 professional, 2 powerseller.' }),
    maySell: BoolSchema,
    sellerActivation: Type.Integer({ minimum: 0, maximum: 3 }),
    riskGroup: Type.Integer(),
    lossPercentage: Type.String(),
    reputation: Type.Integer(),
    shipsFast: Type.Integer(),
    sellCount: Type.Integer(),
    soldItems: Type.Integer(),
    avgShippingTime: Type.Integer(),
    onVacation: BoolSchema,
    idDisplayLanguage: Type.Integer({ minimum: 1, maximum: 5 }),
    name: Type.Object({ firstName: Type.String(), lastName: Type.String() }),
    homeAddress: AddressSchema,
    email: Type.String(),
    phoneNumber: Type.String(),
    vat: Nullable(Type.String()),
    legalInformation: Type.String(),
    registerDate: TimestampSchema,
    isActivated: BoolSchema,
    moneyDetails: Type.Object({
      totalBalance: MoneySchema,
      moneyBalance: MoneySchema,
      bonusBalance: MoneySchema,
      unpaidAmount: MoneySchema,
      providerRechargeAmount: MoneySchema,
    }),
    bankAccount: Type.Object({
      accountOwner: Type.String(),
      iban: Type.String(),
      bic: Type.String(),
      bankName: Type.String(),
    }),
    articlesInShoppingCart: Type.Integer(),
    unreadMessages: Type.Integer(),
  },
  { $id: 'Account', description: 'Account (spec §2.1): the signed-in user.' },
);
export type Account = Static<typeof AccountSchema>;

export const CouponSchema = Type.Object(
  { couponCode: Type.String(), successful: BoolSchema, message: Type.String() },
  { $id: 'CouponResult' },
);

/** The answers that carry the account: the account, what it may do, and the route's own extras. */
export const AccountLinksSchema = LinksSchema;

/** The Account entity (spec §2.1), fields in the order the spec lists them. */
export function mapAccount({ user, counters }: AccountView): Account {
  return {
    idUser: user.idUser,
    username: user.username,
    country: user.country,
    isCommercial: user.isCommercial,
    maySell: bool(user.maySell),
    sellerActivation: user.sellerActivation,
    riskGroup: user.riskGroup,
    lossPercentage: user.lossPercentage,
    reputation: user.reputation,
    shipsFast: user.shipsFast,
    sellCount: user.sellCount,
    soldItems: user.soldItems,
    avgShippingTime: user.avgShippingTime,
    onVacation: bool(user.onVacation),
    idDisplayLanguage: user.idDisplayLanguage,
    name: { firstName: user.firstName, lastName: user.lastName },
    homeAddress: mapHomeAddress(user),
    email: user.email,
    phoneNumber: user.phoneNumber,
    vat: user.vat,
    legalInformation: user.legalInformation,
    registerDate: timestamp(user.registerDate),
    isActivated: bool(user.isActivated),
    moneyDetails: {
      totalBalance: money(user.moneyBalance + user.bonusBalance),
      moneyBalance: money(user.moneyBalance),
      bonusBalance: money(user.bonusBalance),
      unpaidAmount: money(counters.unpaidAmount),
      providerRechargeAmount: money(user.providerRechargeAmount),
    },
    bankAccount: {
      accountOwner: user.accountOwner,
      iban: user.iban,
      bic: user.bic,
      bankName: user.bankName,
    },
    articlesInShoppingCart: counters.articlesInShoppingCart,
    unreadMessages: counters.unreadMessages,
  };
}

/**
 * `mapAccount` for an answer: JSON writes `mapAccount`'s tree, XML is written from the account
 * itself by the writer compiled below, without building the tree (GET /account is the API's hot
 * path; the generic walk over the tree was most of its XML's time).
 */
class AccountElement extends CompiledTree<AccountView> {
  override toJSON(): AccountView {
    // What JSON.stringify writes in its place: the mapped tree.
    return mapAccount(this.tree) as unknown as AccountView;
  }
}

export function accountTree(view: AccountView): Account {
  return new AccountElement(view, accountXml) as unknown as Account;
}

const T = {
  idUser: tag('idUser'),
  username: tag('username'),
  country: tag('country'),
  isCommercial: tag('isCommercial'),
  maySell: tag('maySell'),
  sellerActivation: tag('sellerActivation'),
  riskGroup: tag('riskGroup'),
  lossPercentage: tag('lossPercentage'),
  reputation: tag('reputation'),
  shipsFast: tag('shipsFast'),
  sellCount: tag('sellCount'),
  soldItems: tag('soldItems'),
  avgShippingTime: tag('avgShippingTime'),
  onVacation: tag('onVacation'),
  idDisplayLanguage: tag('idDisplayLanguage'),
  firstName: tag('firstName'),
  lastName: tag('lastName'),
  email: tag('email'),
  phoneNumber: tag('phoneNumber'),
  vat: tag('vat'),
  legalInformation: tag('legalInformation'),
  registerDate: tag('registerDate'),
  isActivated: tag('isActivated'),
  totalBalance: tag('totalBalance'),
  moneyBalance: tag('moneyBalance'),
  bonusBalance: tag('bonusBalance'),
  unpaidAmount: tag('unpaidAmount'),
  providerRechargeAmount: tag('providerRechargeAmount'),
  accountOwner: tag('accountOwner'),
  iban: tag('iban'),
  bic: tag('bic'),
  bankName: tag('bankName'),
  articlesInShoppingCart: tag('articlesInShoppingCart'),
  unreadMessages: tag('unreadMessages'),
};

/**
 * The Account's XML children, byte for byte what the generic writer gives for `mapAccount`'s tree
 * (`account.test.ts` compares them): the tags built once, each value written as that writer writes
 * what `mapAccount` makes of it.
 */
function accountXml({ user, counters }: AccountView): string {
  return (
    intXml(T.idUser, user.idUser) +
    textXml(T.username, user.username) +
    textXml(T.country, user.country) +
    intXml(T.isCommercial, user.isCommercial) +
    boolXml(T.maySell, bool(user.maySell)) +
    intXml(T.sellerActivation, user.sellerActivation) +
    intXml(T.riskGroup, user.riskGroup) +
    textXml(T.lossPercentage, user.lossPercentage) +
    intXml(T.reputation, user.reputation) +
    intXml(T.shipsFast, user.shipsFast) +
    intXml(T.sellCount, user.sellCount) +
    intXml(T.soldItems, user.soldItems) +
    intXml(T.avgShippingTime, user.avgShippingTime) +
    boolXml(T.onVacation, bool(user.onVacation)) +
    intXml(T.idDisplayLanguage, user.idDisplayLanguage) +
    '<name>' +
    textXml(T.firstName, user.firstName) +
    textXml(T.lastName, user.lastName) +
    '</name><homeAddress>' +
    addressXml(user.addressName, user.addressExtra, user.street, user.zip, user.city, user.country) +
    '</homeAddress>' +
    textXml(T.email, user.email) +
    textXml(T.phoneNumber, user.phoneNumber) +
    textXml(T.vat, user.vat) +
    textXml(T.legalInformation, user.legalInformation) +
    timestampXml(T.registerDate, user.registerDate) +
    boolXml(T.isActivated, bool(user.isActivated)) +
    '<moneyDetails>' +
    moneyXml(T.totalBalance, user.moneyBalance + user.bonusBalance) +
    moneyXml(T.moneyBalance, user.moneyBalance) +
    moneyXml(T.bonusBalance, user.bonusBalance) +
    moneyXml(T.unpaidAmount, counters.unpaidAmount) +
    moneyXml(T.providerRechargeAmount, user.providerRechargeAmount) +
    '</moneyDetails><bankAccount>' +
    textXml(T.accountOwner, user.accountOwner) +
    textXml(T.iban, user.iban) +
    textXml(T.bic, user.bic) +
    textXml(T.bankName, user.bankName) +
    '</bankAccount>' +
    intXml(T.articlesInShoppingCart, counters.articlesInShoppingCart) +
    intXml(T.unreadMessages, counters.unreadMessages)
  );
}

/** The account's links, the same for every account: each written once (`SharedTree`), never mapped again. */
const ACCOUNT_LINKS: readonly Link[] = [
  link('self', '/account'),
  link('vacation', '/account/vacation', 'PUT'),
  link('language', '/account/language', 'PUT'),
  link('list_message_threads', '/account/messages'),
  link('redeem_coupon', '/account/coupon', 'POST'),
].map(
  // Frozen, so the XML text kept on each is its text for good; typed as the tree it stands for.
  (l) => new SharedTree(Object.freeze(l) as unknown as Tree) as unknown as Link,
);

/** The `links` that accompany the account wherever it is returned (reference §2.1). */
export function accountLinks(): Link[] {
  return [...ACCOUNT_LINKS];
}

/** One entry of `coupon[]` in the answer to `POST /account/coupon` (reference §1.2). */
export const mapCoupon = (c: CouponResult): Static<typeof CouponSchema> => ({
  couponCode: c.couponCode,
  successful: c.successful,
  message: c.message,
});
