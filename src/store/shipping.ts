import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import type { ShippingMethod } from './schema.js';

const allMethods = prepared(
  (db) => db.selectFrom('shippingMethods').selectAll().orderBy('idShippingMethod'),
  [],
);

/** The shipping methods table (a demo table; operators may edit its rows). */
export async function shippingMethods(db: Executor): Promise<ShippingMethod[]> {
  return allMethods(db);
}
