import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { API_PREFIX } from '../http/routing.js';
import { DOCS_IMAGES_DIR, GUIDES, REFERENCE_PAGES, docPage } from './guides.js';
import { render } from './render.js';

/**
 * The documentation on the website (docs/developing.md, "The documentation"):
 *  - `/docs` lists the guides and the references;
 *  - `/docs/<guide>` renders one guide's Markdown (`docs/<guide>.md`, see guides.ts) in the site's
 *    layout; the guides are English, the page around them speaks the reader's language;
 *  - `/docs/api/reference` is the API reference: the OpenAPI document (`GET /ws/v2.0/openapi.json`)
 *    rendered in the browser by Redoc's standalone bundle, served from node_modules by this server
 *    (no CDN: these machines reach nothing outside, and a reference should not depend on a third
 *    party anyway). It was `/docs` itself until the guides came; `/docs` sends the old deep links
 *    (`/docs#tag/…`, `#operation/…`, `#section/…`) on to it (`assets/docs.js`: a fragment never
 *    reaches the server).
 */
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
export const REDOC_PATH = '/docs/assets/redoc.standalone.js';
export const REFERENCE_PATH = '/docs/api/reference';

/**
 * The site's policy, plus what Redoc needs: it writes its styles into `<style>` elements
 * (styled-components) and runs its search in a worker made from a `blob:` URL.
 */
export const DOCS_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; img-src 'self' data:; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Redoc's bundle as served: its sidebar's "API docs by Redocly" link shows a logo from Redocly's CDN,
 * which the page's policy refuses (and these machines cannot reach); it shows the site's icon
 * instead, so the reference makes no request the policy blocks. Read once, kept.
 */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
let redocBody: Promise<Buffer> | undefined;
function redocBundle(): Promise<Buffer> {
  redocBody ??= readFile(REDOC_BUNDLE, 'utf8').then((text) =>
    Buffer.from(text.split(REDOC_LOGO).join('/assets/icon.svg'), 'utf8'),
  );
  return redocBody;
}

/** Redoc's bundle, and nothing else from its folder; the guides' pictures. */
export async function docsAssets(app: FastifyInstance): Promise<void> {
  app.get(REDOC_PATH, async (_request, reply) => {
    const body = await redocBundle();
    return reply
      .header('Cache-Control', 'public, max-age=3600')
      .type('application/javascript; charset=utf-8')
      .send(body);
  });
  await app.register(fastifyStatic, {
    root: DOCS_IMAGES_DIR,
    prefix: '/docs/images/',
    decorateReply: false,
    index: false,
    maxAge: '1h',
    allowedPath: (pathName) => /^\/[\w.-]+\.png$/.test(pathName),
  });
}

export function docsPages(app: FastifyInstance): void {
  app.get('/docs', async (request, reply) => {
    const [guides, references] = await Promise.all([
      Promise.all(GUIDES.map((slug) => docPage(slug)!)),
      Promise.all(REFERENCE_PAGES.map((slug) => docPage(slug)!)),
    ]);
    return render(request, reply, 'docs-index', {
      title: 'docs.indexTitle',
      guides,
      references,
      referencePath: REFERENCE_PATH,
      specUrl: `${API_PREFIX}/openapi.json`,
    });
  });

  app.get(REFERENCE_PATH, async (request, reply) => {
    reply.header('Content-Security-Policy', DOCS_CSP);
    return render(request, reply, 'docs', {
      title: 'docs.title',
      specUrl: `${API_PREFIX}/openapi.json`,
      bundle: REDOC_PATH,
    });
  });

  app.get<{ Params: { guide: string } }>('/docs/:guide', async (request, reply) => {
    const page = docPage(request.params.guide);
    if (!page)
      throw new ApiError(404, `There is no guide "${request.params.guide}".`, {
        reason: 'no_such_guide',
        params: { name: request.params.guide },
      });
    const guide = await page;
    return render(request, reply, 'guide', {
      title: 'docs.guideTitle',
      titleParams: { title: guide.title },
      guide,
    });
  });
}
