import type { PricedMethod } from '../domain/shipping.js';
import { bool, money } from './values.js';

/** The ShippingMethod entity (reference §2.14). */
export interface ShippingMethodFacts {
  idShippingMethod: number | null;
  name: string;
  /** Cents. */
  price: number;
  isLetter: number;
  isInsured: number;
}

export function mapShippingMethod(m: ShippingMethodFacts) {
  return {
    idShippingMethod: m.idShippingMethod,
    name: m.name,
    price: money(m.price),
    idCurrency: 1,
    currencyCode: 'EUR',
    isLetter: bool(m.isLetter),
    isInsured: bool(m.isInsured),
  };
}

/** A method of the table with its price for one shipment (a reservation, an available method). */
export const mapPricedMethod = ({ method, price }: PricedMethod) =>
  mapShippingMethod({
    idShippingMethod: method.idShippingMethod,
    name: method.name,
    price,
    isLetter: method.isLetter,
    isInsured: method.isInsured,
  });
