import type { User } from '../store/schema.js';
import { mapHomeAddress } from './address.js';
import { bool, link, timestamp } from './values.js';

/**
 * How much of a user another user sees depends on their relationship (reference §2.2):
 *  - `public`: a marketplace listing or a profile; first name and company only, no contact or
 *    street address;
 *  - `counterparty`: the other party of an order or a message thread; name, address and contact.
 */
export type UserContext = 'public' | 'counterparty';

export function mapUser(user: User, context: UserContext = 'public') {
  const full = context === 'counterparty';
  return {
    idUser: user.idUser,
    username: user.username,
    registrationDate: timestamp(user.registerDate),
    isCommercial: user.isCommercial,
    isSeller: bool(user.maySell),
    name: full
      ? { company: user.company, firstName: user.firstName, lastName: user.lastName }
      : { company: user.company, firstName: user.firstName },
    address: full ? mapHomeAddress(user) : { country: user.country },
    // Hidden contact details are empty strings, never null, as the real API sends them: clients
    // model `email` and `phone` as plain strings.
    phone: full ? user.phoneNumber : '',
    email: full ? user.email : '',
    vat: user.vat,
    legalInformation: user.legalInformation,
    riskGroup: user.riskGroup,
    lossPercentage: user.lossPercentage,
    unsentShipments: user.unsentShipments,
    reputation: user.reputation,
    shipsFast: user.shipsFast,
    sellCount: user.sellCount,
    soldItems: user.soldItems,
    avgShippingTime: user.avgShippingTime,
    onVacation: bool(user.onVacation),
    links: [link('self', `/users/${user.idUser}`), link('articles', `/users/${user.idUser}/articles`)],
  };
}
