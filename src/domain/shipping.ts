import type { ShippingMethod } from '../store/schema.js';

/**
 * Shipping prices of the demo table (docs/api.md, "Shipping"): each method has a price per zone between
 * the seller's country and the destination country, and letters carry only a limited number of
 * articles (uninsured ones also only up to a value).
 */
export type ShippingZone = 'domestic' | 'europe' | 'world';

/** Where a European letter or parcel price applies: the EU, the EEA, Switzerland and the UK. */
const EUROPE = new Set([
  'AT',
  'BE',
  'BG',
  'CH',
  'CY',
  'CZ',
  'D',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GB',
  'GR',
  'HR',
  'HU',
  'IE',
  'IS',
  'IT',
  'LI',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'NO',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

export function shippingZone(sellerCountry: string, destinationCountry: string): ShippingZone {
  if (sellerCountry === destinationCountry) return 'domestic';
  if (EUROPE.has(sellerCountry) && EUROPE.has(destinationCountry)) return 'europe';
  return 'world';
}

/** A method with its price for one shipment. */
export interface PricedMethod {
  method: ShippingMethod;
  /** Cents. */
  price: number;
}

function priceIn(method: ShippingMethod, zone: ShippingZone): number {
  return zone === 'domestic'
    ? method.priceDomestic
    : zone === 'europe'
      ? method.priceEurope
      : method.priceWorld;
}

function carries(method: ShippingMethod, articleCount: number, articleValue: number): boolean {
  return (
    (method.maxArticles === null || articleCount <= method.maxArticles) &&
    (method.maxArticleValue === null || articleValue <= method.maxArticleValue)
  );
}

/** The methods that can carry this shipment, cheapest first. */
export function availableMethods(
  methods: ShippingMethod[],
  zone: ShippingZone,
  articleCount: number,
  articleValue: number,
): PricedMethod[] {
  return methods
    .filter((m) => carries(m, articleCount, articleValue))
    .map((method) => ({ method, price: priceIn(method, zone) }))
    .sort((a, b) => a.price - b.price || a.method.idShippingMethod - b.method.idShippingMethod);
}

/**
 * The method a shipment goes by: the one chosen, while it can carry the shipment, else the cheapest
 * that can. Undefined only when no method at all carries it (an operator emptied the table).
 */
export function effectiveMethod(
  methods: ShippingMethod[],
  chosen: number | null,
  zone: ShippingZone,
  articleCount: number,
  articleValue: number,
): PricedMethod | undefined {
  const available = availableMethods(methods, zone, articleCount, articleValue);
  return available.find((m) => m.method.idShippingMethod === chosen) ?? available[0];
}
