import { type ApiError, badRequest, readEachField } from '../errors.js';
import type { PostalAddress } from '../store/reservations.js';
import { normalizeCountry } from './users.js';

/**
 * The cart's shipping address as `PUT /shoppingcart/shippingaddress` and the cart page take it:
 * name, street, zip, city and country required, extra optional, each at most 200 characters after
 * trimming, the country an ISO code (`DE` stored as `D`). One rule for both, each error naming its
 * field.
 */
export type PostalAddressInput = Partial<Record<keyof PostalAddress, string | undefined>>;

export const MAX_ADDRESS_FIELD = 200;

function addressField(
  input: PostalAddressInput,
  name: keyof PostalAddress,
  required: boolean,
): string | null {
  const t = input[name]?.trim() ?? '';
  if (required && t === '') throw badRequest(`"${name}" is required.`, { field: name, reason: 'required' });
  if (t.length > MAX_ADDRESS_FIELD) {
    throw badRequest(`"${name}" may have at most ${MAX_ADDRESS_FIELD} characters.`, {
      field: name,
      reason: 'too_long_max',
      params: { max: MAX_ADDRESS_FIELD },
    });
  }
  return t === '' ? null : t;
}

/** The API's answer for a bad country here names no `internal_error_code` (registration's does). */
function addressCountry(text: string): string {
  try {
    return normalizeCountry(text);
  } catch (err) {
    throw badRequest((err as ApiError).message, { field: 'country', reason: 'invalid_country' });
  }
}

/** Every field is checked (a page shows each problem); the API answers with the country's first. */
export function checkPostalAddress(input: PostalAddressInput): PostalAddress {
  const { country, ...rest } = readEachField<PostalAddress>({
    country: () => addressCountry(addressField(input, 'country', true)!),
    name: () => addressField(input, 'name', true)!,
    extra: () => addressField(input, 'extra', false),
    street: () => addressField(input, 'street', true)!,
    zip: () => addressField(input, 'zip', true)!,
    city: () => addressField(input, 'city', true)!,
  });
  return { ...rest, country };
}
