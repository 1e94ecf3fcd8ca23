import type { ShownUser } from '../store/users.js';
import { type Static, Type } from '@sinclair/typebox';
import { AddressSchema, mapHomeAddress } from './address.js';
import { bool, BoolSchema, link, LinksSchema, Nullable, timestamp, TimestampSchema } from './values.js';

export const UserSchema = Type.Object(
  {
    idUser: Type.Integer(),
    username: Type.String(),
    registrationDate: TimestampSchema,
    isCommercial: Type.Integer({ description: '0 private, 1 professional, 2 powerseller.' }),
    isSeller: BoolSchema,
    name: Type.Object({
      company: Nullable(Type.String()),
      firstName: Type.String(),
      lastName: Type.Optional(Type.String({ description: 'Only for the other party of an order.' })),
    }),
    address: Type.Union([AddressSchema, Type.Object({ country: Type.String() })], {
      description: 'The whole address for the other party of an order; the country alone everywhere else.',
    }),
    phone: Type.String({ description: 'Empty unless the viewer is the other party of an order.' }),
    email: Type.String({ description: 'Empty unless the viewer is the other party of an order.' }),
    vat: Nullable(Type.String()),
    legalInformation: Type.String(),
    riskGroup: Type.Integer(),
    lossPercentage: Type.String(),
    unsentShipments: Type.Integer(),
    reputation: Type.Integer(),
    shipsFast: Type.Integer(),
    sellCount: Type.Integer(),
    soldItems: Type.Integer(),
    avgShippingTime: Type.Integer(),
    onVacation: BoolSchema,
    links: LinksSchema,
  },
  { $id: 'User', description: 'User (reference §2.2), as another user sees them.' },
);
export type ApiUser = Static<typeof UserSchema>;

/**
 * How much of a user another user sees depends on their relationship (reference §2.2):
 *  - `public`: a marketplace listing or a profile; first name and company only, no contact or
 *    street address;
 *  - `counterparty`: the other party of an order or a message thread; name, address and contact.
 */
export type UserContext = 'public' | 'counterparty';

export function mapUser(user: ShownUser, context: UserContext = 'public'): ApiUser {
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
