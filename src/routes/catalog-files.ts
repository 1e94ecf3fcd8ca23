import { assertMayReadPriceGuide, priceGuideFile, productListFile } from '../domain/catalog-files.js';
import { integer } from '../http/fields.js';
import { ALL_KINDS, ok, type Router } from '../http/routing.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer } from '../http/route-schema.js';

/** The catalog and the price guide as files: base64 of a gzipped CSV (reference §1.3). */
const MIME = 'application/x-gzip';

export function catalogFileRoutes(r: Router, services: Services): void {
  r.get(
    '/productlist',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'The product catalog as a file (base64 of a gzipped CSV)',
        query: { idGame: Type.Integer({ minimum: 1 }) },
        responses: {
          200: Answer({ productsfile: Type.String({ contentEncoding: 'base64' }), mime: Type.String() }),
        },
      },
    },
    async (req) => {
      const file = await productListFile(services, integer(req.query, 'idGame', { min: 1 }));
      return ok({ productsfile: file.toString('base64'), mime: MIME });
    },
  );

  r.get(
    '/priceguide',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'The price guide as a file (base64 of a gzipped CSV)',
        query: { idGame: Type.Integer({ minimum: 1 }) },
        responses: {
          200: Answer({ priceguidefile: Type.String({ contentEncoding: 'base64' }), mime: Type.String() }),
        },
      },
    },
    async (req) => {
      await assertMayReadPriceGuide(services, req.auth.kind, req.auth.idOwner);
      const file = await priceGuideFile(services, integer(req.query, 'idGame', { min: 1 }) ?? 1);
      return ok({ priceguidefile: file.toString('base64'), mime: MIME });
    },
  );
}
