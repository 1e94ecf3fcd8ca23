import type { MetaproductInfo } from '../store/products.js';
import { localName, mapLocalization } from './localization.js';
import { link } from './values.js';

/**
 * The Metaproduct entity (reference §2.9): the card behind all its printings. Its localized names
 * are those of its printings (they share them); its image is its first printing's.
 */
export function mapMetaproduct(meta: MetaproductInfo, idLanguage: number) {
  return {
    idMetaproduct: meta.idMetaproduct,
    enName: meta.enName,
    locName: localName(meta.names, meta.enName, idLanguage),
    localization: mapLocalization(meta.names, meta.enName),
    image: meta.image,
    links: [link('self', `/metaproducts/${meta.idMetaproduct}`)],
  };
}
