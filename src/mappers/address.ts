import type { PostalAddress } from '../store/reservations.js';

/** The Address entity (reference §2.3): a cart's or an order's shipping address. */
export function mapPostalAddress(a: PostalAddress) {
  return {
    name: a.name,
    extra: a.extra,
    street: a.street,
    zip: a.zip,
    city: a.city,
    country: a.country,
  };
}
