import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CatalogDownloads, type DownloadKind } from '../domain/catalog-downloads.js';
import { ApiError, notFound } from '../errors.js';
import { setFormat } from '../http/format.js';
import type { Services } from '../services.js';

/**
 * The catalog download files (reference §1.9) at the paths the live service's bucket uses, so a
 * client switches by changing only the host. Public, like the originals: no OAuth and no request
 * limits. Conditional requests (ETag, Last-Modified) and gzip let a client poll cheaply.
 */
export const DOWNLOAD_PATHS = {
  productList: '/productCatalog/productList/:file',
  priceGuide: '/productCatalog/priceGuide/:file',
} as const;

const ALLOWED = 'GET, HEAD, OPTIONS';
const PRODUCT_FILE = /^products_(singles|nonsingles)_(\d{1,9})\.json$/;
const PRICE_GUIDE_FILE = /^price_guide_(\d{1,9})\.json$/;

export function installCatalogDownloads(app: FastifyInstance, services: Services): void {
  const downloads = new CatalogDownloads(services);

  const parse = (folder: keyof typeof DOWNLOAD_PATHS, file: string): [DownloadKind, number] => {
    const m = (folder === 'productList' ? PRODUCT_FILE : PRICE_GUIDE_FILE).exec(file);
    if (!m) {
      throw notFound(
        folder === 'productList'
          ? `There is no file ${file} here: product lists are products_singles_{idGame}.json and products_nonsingles_{idGame}.json.`
          : `There is no file ${file} here: price guides are price_guide_{idGame}.json.`,
      );
    }
    return folder === 'productList'
      ? [m[1] === 'singles' ? 'singles' : 'nonsingles', Number(m[2])]
      : ['priceGuide', Number(m[1])];
  };

  for (const folder of ['productList', 'priceGuide'] as const) {
    const url = DOWNLOAD_PATHS[folder];
    const onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      setFormat(request.raw, 'json');
      reply.header('Access-Control-Allow-Methods', ALLOWED);
      done();
    };
    app.route({
      method: ['GET', 'HEAD'],
      url,
      onRequest,
      handler: async (request, reply) => {
        const [kind, idGame] = parse(folder, (request.params as { file: string }).file);
        const file = await downloads.file(kind, idGame);
        reply
          .header('Content-Type', 'application/json')
          .header('ETag', file.etag)
          .header('Last-Modified', new Date(file.createdAt).toUTCString())
          .header('Cache-Control', 'no-cache')
          .header('Vary', 'Accept-Encoding');
        if (notModified(request, file.etag, file.createdAt)) return reply.code(304).send();
        const gzipped = acceptsGzip(request.headers['accept-encoding']);
        const body = gzipped ? file.gzip : file.json;
        if (gzipped) reply.header('Content-Encoding', 'gzip');
        reply.header('Content-Length', String(body.length));
        return reply.code(200).send(request.method === 'HEAD' ? undefined : body);
      },
    });
    app.route({
      method: 'OPTIONS',
      url,
      onRequest,
      handler: async (_request, reply) => reply.header('Allow', ALLOWED).code(200).send(''),
    });
    app.route({
      method: ['POST', 'PUT', 'DELETE', 'PATCH'],
      url,
      onRequest,
      handler: async (request) => {
        throw new ApiError(
          405,
          `${request.method} is not allowed on a download file; it accepts ${ALLOWED}.`,
          {
            headers: { Allow: ALLOWED },
          },
        );
      },
    });
  }
}

/** RFC 9110 §13.1: If-None-Match (weak comparison) decides when present, else If-Modified-Since. */
function notModified(request: FastifyRequest, etag: string, createdAt: number): boolean {
  const match = request.headers['if-none-match'];
  if (match !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return match.trim() === '*' || match.split(',').some((t) => opaque(t) === opaque(etag));
  }
  const since = request.headers['if-modified-since'];
  if (since === undefined) return false;
  const at = Date.parse(since);
  return !Number.isNaN(at) && createdAt <= at;
}

/** Whether `Accept-Encoding` admits gzip (`gzip`, `x-gzip` or `*`, with a quality above 0). */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}
