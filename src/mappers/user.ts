import type { ShownUser } from '../store/users.js';
import { type Static, Type } from '@sinclair/typebox';
import { xmlElement, xmlBytes, type XmlWriter } from '../http/xml.js';
import { addressTo, addressXml, AddressSchema, mapHomeAddress } from './address.js';
import {
  boolTo,
  boolXml,
  intTo,
  intXml,
  tag,
  textTo,
  textXml,
  timestampTo,
  timestampXml,
} from './compiled-xml.js';
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

const T = {
  idUser: tag('idUser'),
  username: tag('username'),
  registrationDate: tag('registrationDate'),
  isCommercial: tag('isCommercial'),
  isSeller: tag('isSeller'),
  company: tag('company'),
  firstName: tag('firstName'),
  lastName: tag('lastName'),
  phone: tag('phone'),
  email: tag('email'),
  vat: tag('vat'),
  legalInformation: tag('legalInformation'),
  riskGroup: tag('riskGroup'),
  lossPercentage: tag('lossPercentage'),
  unsentShipments: tag('unsentShipments'),
  reputation: tag('reputation'),
  shipsFast: tag('shipsFast'),
  sellCount: tag('sellCount'),
  soldItems: tag('soldItems'),
  avgShippingTime: tag('avgShippingTime'),
  onVacation: tag('onVacation'),
  country: tag('country'),
};

/**
 * The XML children of `mapUser(user, context)`, written straight from the user (a page of 100
 * orders writes a hundred buyers, every thread its partner): byte for byte what the generic writer
 * gives for that tree (`order.test.ts` and `user.test.ts` compare them).
 */
export function userXml(user: ShownUser, context: UserContext): string {
  const id = user.idUser;
  const full = context === 'counterparty';
  return (
    intXml(T.idUser, id) +
    textXml(T.username, user.username) +
    timestampXml(T.registrationDate, user.registerDate) +
    intXml(T.isCommercial, user.isCommercial) +
    boolXml(T.isSeller, bool(user.maySell)) +
    '<name>' +
    textXml(T.company, user.company) +
    textXml(T.firstName, user.firstName) +
    (full
      ? textXml(T.lastName, user.lastName) +
        '</name><address>' +
        addressXml(user.addressName, user.addressExtra, user.street, user.zip, user.city, user.country) +
        '</address>' +
        textXml(T.phone, user.phoneNumber) +
        textXml(T.email, user.email)
      : '</name><address>' + textXml(T.country, user.country) + '</address><phone/><email/>') +
    textXml(T.vat, user.vat) +
    textXml(T.legalInformation, user.legalInformation) +
    intXml(T.riskGroup, user.riskGroup) +
    textXml(T.lossPercentage, user.lossPercentage) +
    intXml(T.unsentShipments, user.unsentShipments) +
    intXml(T.reputation, user.reputation) +
    intXml(T.shipsFast, user.shipsFast) +
    intXml(T.sellCount, user.sellCount) +
    intXml(T.soldItems, user.soldItems) +
    intXml(T.avgShippingTime, user.avgShippingTime) +
    boolXml(T.onVacation, bool(user.onVacation)) +
    (typeof id === 'number'
      ? `<links><rel>self</rel><href>/users/${id}</href><method>GET</method></links>` +
        `<links><rel>articles</rel><href>/users/${id}/articles</href><method>GET</method></links>`
      : xmlElement('links', [link('self', `/users/${id}`), link('articles', `/users/${id}/articles`)]))
  );
}

/** The markup between the values of the writers into bytes below, encoded once. */
const M = {
  NAME: xmlBytes('<name>'),
  NAME_END_ADDRESS: xmlBytes('</name><address>'),
  ADDRESS_END: xmlBytes('</address>'),
  ADDRESS_END_NO_CONTACT: xmlBytes('</address><phone/><email/>'),
  SELF_USERS: xmlBytes('<links><rel>self</rel><href>/users/'),
  GET_ARTICLES_USERS: xmlBytes('</href><method>GET</method></links><links><rel>articles</rel><href>/users/'),
  ARTICLES_GET_END: xmlBytes('/articles</href><method>GET</method></links>'),
};

/** `userXml(user, 'counterparty')` written into an answer's bytes (the order's writer). */
export const counterpartyTo = (out: XmlWriter, user: ShownUser): void => userTo(out, user, true);

/** `userXml(user, 'public')` written into an answer's bytes (the sellers of a page of offers). */
export const publicUserTo = (out: XmlWriter, user: ShownUser): void => userTo(out, user, false);

function userTo(out: XmlWriter, user: ShownUser, full: boolean): void {
  const id = user.idUser;
  intTo(out, T.idUser, id);
  textTo(out, T.username, user.username);
  timestampTo(out, T.registrationDate, user.registerDate);
  intTo(out, T.isCommercial, user.isCommercial);
  boolTo(out, T.isSeller, bool(user.maySell));
  out.bytes(M.NAME);
  textTo(out, T.company, user.company);
  textTo(out, T.firstName, user.firstName);
  if (full) {
    textTo(out, T.lastName, user.lastName);
    out.bytes(M.NAME_END_ADDRESS);
    addressTo(out, user.addressName, user.addressExtra, user.street, user.zip, user.city, user.country);
    out.bytes(M.ADDRESS_END);
    textTo(out, T.phone, user.phoneNumber);
    textTo(out, T.email, user.email);
  } else {
    out.bytes(M.NAME_END_ADDRESS);
    textTo(out, T.country, user.country);
    out.bytes(M.ADDRESS_END_NO_CONTACT);
  }
  textTo(out, T.vat, user.vat);
  textTo(out, T.legalInformation, user.legalInformation);
  intTo(out, T.riskGroup, user.riskGroup);
  textTo(out, T.lossPercentage, user.lossPercentage);
  intTo(out, T.unsentShipments, user.unsentShipments);
  intTo(out, T.reputation, user.reputation);
  intTo(out, T.shipsFast, user.shipsFast);
  intTo(out, T.sellCount, user.sellCount);
  intTo(out, T.soldItems, user.soldItems);
  intTo(out, T.avgShippingTime, user.avgShippingTime);
  boolTo(out, T.onVacation, bool(user.onVacation));
  if (typeof id === 'number') {
    out.bytes(M.SELF_USERS);
    out.number(id);
    out.bytes(M.GET_ARTICLES_USERS);
    out.number(id);
    out.bytes(M.ARTICLES_GET_END);
  } else
    out.markup(
      xmlElement('links', [link('self', `/users/${id}`), link('articles', `/users/${id}/articles`)]),
    );
}
