import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../http/routing.js';
import { render } from './render.js';

/**
 * `/docs`: the API reference, the OpenAPI document (`GET /ws/v2.0/openapi.json`) rendered in the
 * browser by Redoc's standalone bundle, served from node_modules by this server (no CDN: these
 * machines reach nothing outside, and a reference should not depend on a third party anyway).
 */
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
export const REDOC_PATH = '/docs/assets/redoc.standalone.js';

/**
 * The site's policy, plus what Redoc needs: it writes its styles into `<style>` elements
 * (styled-components) and runs its search in a worker made from a `blob:` URL.
 */
export const DOCS_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; img-src 'self' data:; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The bundle, and nothing else from its folder. */
export async function docsAssets(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, {
    root: dirname(REDOC_BUNDLE),
    prefix: '/docs/assets/',
    decorateReply: false,
    index: false,
    maxAge: '1h',
    allowedPath: (pathName) => pathName === '/redoc.standalone.js',
  });
}

export function docsPages(app: FastifyInstance): void {
  app.get('/docs', async (request, reply) => {
    reply.header('Content-Security-Policy', DOCS_CSP);
    return render(request, reply, 'docs', {
      title: 'docs.title',
      specUrl: `${API_PREFIX}/openapi.json`,
      bundle: REDOC_PATH,
    });
  });
}
