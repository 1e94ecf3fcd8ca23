import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { type ExamplesFile, type JsonObject, openApiDocument } from '../http/openapi.js';
import { publicOrigin } from '../http/origin.js';
import type { Router } from '../http/routing.js';
import type { Services } from '../services.js';

/** cardbazaar's version, the document's `info.version`. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The recorded examples (`npm run openapi:examples`), beside the sources and in the package; a
 * checkout without the file describes the API without them.
 */
function loadExamples(): ExamplesFile | undefined {
  try {
    return JSON.parse(
      readFileSync(new URL('../../docs/openapi-examples.json', import.meta.url), 'utf8'),
    ) as ExamplesFile;
  } catch {
    return undefined;
  }
}

/** The OpenAPI document of every route the router holds (this one included). */
export function apiDocument(router: Router, origin?: string, control = false): JsonObject {
  return openApiDocument(router.definitions(), {
    version: VERSION,
    examples: loadExamples(),
    origin,
    control,
  });
}

/**
 * `GET /openapi.json`: the API described, without authentication (a client tool imports it before
 * it has credentials). JSON whatever the format segment says: it is a JSON document by definition.
 */
export function openApiRoutes(r: Router, services: Services): void {
  // One document per address it was asked at (a handful: the public one, localhost, old hosts),
  // bounded so that made-up Host headers cannot grow it.
  const cached = new Map<string, string>();
  r.get(
    '/openapi.json',
    {
      kinds: 'public',
      schema: {
        summary: 'This document (OpenAPI 3.1)',
        mediaType: 'application/json',
        responses: { 200: Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3.1.' }) },
      },
    },
    async (req) => {
      // Built on first use: every route is registered by then, and the routes never change after.
      const { origin, basePath } = publicOrigin(req.raw, services.config);
      const base = `${origin}${basePath}`;
      let document = cached.get(base);
      if (document === undefined) {
        document = JSON.stringify(apiDocument(r, base, services.config.mode === 'sandbox'));
        if (cached.size >= 8) cached.delete(cached.keys().next().value as string);
        cached.set(base, document);
      }
      return {
        status: 200,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' },
        payload: document,
      };
    },
  );
}
