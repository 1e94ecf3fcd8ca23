import type { PricedMethod } from '../domain/shipping.js';
import { type Static, Type } from '@sinclair/typebox';
import { xmlBytes, type XmlWriter } from '../http/xml.js';
import { boolTo, intTo, moneyTo, tag, textTo } from './compiled-xml.js';
import { bool, BoolSchema, money, MoneySchema, Nullable } from './values.js';

export const ShippingMethodSchema = Type.Object(
  {
    idShippingMethod: Nullable(Type.Integer()),
    name: Type.String(),
    price: MoneySchema,
    idCurrency: Type.Literal(1),
    currencyCode: Type.Literal('EUR'),
    isLetter: BoolSchema,
    isInsured: BoolSchema,
  },
  { $id: 'ShippingMethod', description: 'ShippingMethod (reference §2.14).' },
);

/** The ShippingMethod entity (reference §2.14). */
export interface ShippingMethodFacts {
  idShippingMethod: number | null;
  name: string;
  /** Cents. */
  price: number;
  isLetter: number;
  isInsured: number;
}

export function mapShippingMethod(m: ShippingMethodFacts): Static<typeof ShippingMethodSchema> {
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

const T = {
  idShippingMethod: tag('idShippingMethod'),
  name: tag('name'),
  price: tag('price'),
  isLetter: tag('isLetter'),
  isInsured: tag('isInsured'),
};

/** The markup between the values of the writers into bytes below, encoded once. */
const M = {
  EUROS: xmlBytes('<idCurrency>1</idCurrency><currencyCode>EUR</currencyCode>'),
};

/** The XML children of `mapShippingMethod(m)`, written into an answer's bytes (the order's writer). */
export function shippingMethodTo(out: XmlWriter, m: ShippingMethodFacts): void {
  intTo(out, T.idShippingMethod, m.idShippingMethod);
  textTo(out, T.name, m.name);
  moneyTo(out, T.price, m.price);
  out.bytes(M.EUROS);
  boolTo(out, T.isLetter, bool(m.isLetter));
  boolTo(out, T.isInsured, bool(m.isInsured));
}
