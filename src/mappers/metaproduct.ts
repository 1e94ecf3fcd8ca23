import type { MetaproductInfo } from '../store/products.js';
import { type Static, Type } from '@sinclair/typebox';
import { LocalizationSchema, localName, mapLocalization } from './localization.js';
import { link, LinksSchema } from './values.js';

export const MetaproductSchema = Type.Object(
  {
    idMetaproduct: Type.Integer(),
    enName: Type.String(),
    locName: Type.String(),
    localization: LocalizationSchema,
    image: Type.String(),
    links: LinksSchema,
  },
  { $id: 'Metaproduct', description: 'Metaproduct (reference §2.9).' },
);

/**
 * The Metaproduct entity (reference §2.9): the card behind all its printings. Its localized names
 * are those of its printings (they share them); its image is its first printing's.
 */
export function mapMetaproduct(meta: MetaproductInfo, idLanguage: number): Static<typeof MetaproductSchema> {
  return {
    idMetaproduct: meta.idMetaproduct,
    enName: meta.enName,
    locName: localName(meta.names, meta.enName, idLanguage),
    localization: mapLocalization(meta.names, meta.enName),
    image: meta.image,
    links: [link('self', `/metaproducts/${meta.idMetaproduct}`)],
  };
}
