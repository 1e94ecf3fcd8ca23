import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { type ExamplesFile, type JsonObject, openApiDocument } from '../http/openapi.js';
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
export function apiDocument(router: Router): JsonObject {
  return openApiDocument(router.definitions(), { version: VERSION, examples: loadExamples() });
}

/**
 * `GET /openapi.json`: the API described, without authentication (a client tool imports it before
 * it has credentials). JSON whatever the format segment says: it is a JSON document by definition.
 */
export function openApiRoutes(r: Router, _services: Services): void {
  let cached: string | undefined;
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
    async () => {
      // Built on first use: every route is registered by then, and the routes never change after.
      cached ??= JSON.stringify(apiDocument(r));
      return {
        status: 200,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' },
        payload: cached,
      };
    },
  );
}
