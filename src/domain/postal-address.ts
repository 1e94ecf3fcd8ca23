import { type ApiError, badRequest } from '../errors.js';
import type { PostalAddress } from '../store/reservations.js';
import { normalizeCountry } from './users.js';

/**
 * The cart's shipping address as `PUT /shoppingcart/shippingaddress` and the cart page take it:
 * name, street, zip, city and country required, extra optional, each at most 200 characters after
 * trimming, the country an ISO code (`DE` stored as `D`). One rule for both, each error naming its
 * field.
 */
export type PostalAddressInput = Partial<Record<keyof PostalAddress, string | undefined>>;

const MAX_ADDRESS_FIELD = 200;

function addressField(
  input: PostalAddressInput,
  name: keyof PostalAddress,
  required: boolean,
): string | null {
  const t = input[name]?.trim() ?? '';
  if (required && t === '') throw badRequest(`"${name}" is required.`, { field: name });
  if (t.length > MAX_ADDRESS_FIELD) {
    throw badRequest(`"${name}" may have at most ${MAX_ADDRESS_FIELD} characters.`, { field: name });
  }
  return t === '' ? null : t;
}

export function checkPostalAddress(input: PostalAddressInput): PostalAddress {
  const country = addressField(input, 'country', true)!;
  let normalized: string;
  try {
    normalized = normalizeCountry(country);
  } catch (err) {
    throw badRequest((err as ApiError).message, { field: 'country' });
  }
  return {
    name: addressField(input, 'name', true)!,
    extra: addressField(input, 'extra', false),
    street: addressField(input, 'street', true)!,
    zip: addressField(input, 'zip', true)!,
    city: addressField(input, 'city', true)!,
    country: normalized,
  };
}
