import type { AccountView, CouponResult } from '../domain/account.js';
import { mapHomeAddress } from './address.js';
import { bool, link, money, timestamp } from './values.js';

/** The Account entity (spec §2.1), fields in the order the spec lists them. */
export function mapAccount({ user, counters }: AccountView) {
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

/** The `links` that accompany the account wherever it is returned (reference §2.1). */
export function accountLinks() {
  return [
    link('self', '/account'),
    link('vacation', '/account/vacation', 'PUT'),
    link('language', '/account/language', 'PUT'),
    link('list_message_threads', '/account/messages'),
    link('redeem_coupon', '/account/coupon', 'POST'),
  ];
}

/** One entry of `coupon[]` in the answer to `POST /account/coupon` (reference §1.2). */
export const mapCoupon = (c: CouponResult) => ({
  couponCode: c.couponCode,
  successful: c.successful,
  message: c.message,
});
