import { homeAddress } from '../domain/cart.js';
import type { PostalAddress } from '../store/reservations.js';
import { type Static, Type } from '@sinclair/typebox';
import type { XmlWriter } from '../http/xml.js';
import { tag, textTo, textXml } from './compiled-xml.js';
import { Nullable } from './values.js';

export const AddressSchema = Type.Object(
  {
    name: Type.String(),
    extra: Nullable(Type.String()),
    street: Type.String(),
    zip: Type.String(),
    city: Type.String(),
    country: Type.String({ description: "The live API's country code (`D` for Germany)." }),
  },
  { $id: 'Address', description: 'Address (reference §2.3).' },
);
export type Address = Static<typeof AddressSchema>;

/**
 * The Address entity (reference §2.3), the one shape of an account's home address, a user's
 * address as an order's counterparty sees it, a cart's and an order's shipping address.
 */
export function mapAddress(a: PostalAddress): Address {
  return {
    name: a.name,
    extra: a.extra,
    street: a.street,
    zip: a.zip,
    city: a.city,
    country: a.country,
  };
}

/** A user's home address as the Address entity. */
export const mapHomeAddress = (user: Parameters<typeof homeAddress>[0]) => mapAddress(homeAddress(user));

const T = {
  name: tag('name'),
  extra: tag('extra'),
  street: tag('street'),
  zip: tag('zip'),
  city: tag('city'),
  country: tag('country'),
};

/** The XML children of `mapAddress` of these fields, for the writers compiled for an entity. */
export function addressXml(
  name: string,
  extra: string | null,
  street: string,
  zip: string,
  city: string,
  country: string,
): string {
  return (
    textXml(T.name, name) +
    textXml(T.extra, extra) +
    textXml(T.street, street) +
    textXml(T.zip, zip) +
    textXml(T.city, city) +
    textXml(T.country, country)
  );
}

/** `addressXml` written into an answer's bytes. */
export function addressTo(
  out: XmlWriter,
  name: string,
  extra: string | null,
  street: string,
  zip: string,
  city: string,
  country: string,
): void {
  textTo(out, T.name, name);
  textTo(out, T.extra, extra);
  textTo(out, T.street, street);
  textTo(out, T.zip, zip);
  textTo(out, T.city, city);
  textTo(out, T.country, country);
}
