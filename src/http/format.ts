import type { IncomingMessage } from 'node:http';

/**
 * The output format is chosen by a path segment right after the version prefix:
 * `/ws/v2.0/output.json/account` is JSON, `/ws/v2.0/output.xml/account` and `/ws/v2.0/account` are
 * XML. The segment is taken out of the URL before routing (Fastify's `rewriteUrl`), so every route
 * exists once; the original URL stays on the request for the OAuth signature.
 */
export type Format = 'xml' | 'json';

const FORMAT = Symbol('cardbazaar.format');
type WithFormat = IncomingMessage & { [FORMAT]?: Format };

// Version 1.1 had the switch too: its 410 answers in the format the client asked for.
const PREFIX = /^\/ws\/(v2\.0|v1\.1)\/output\.(json|xml)(?=\/|\?|$)/;

export function rewriteFormatSegment(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const m = PREFIX.exec(url);
  if (!m) return url;
  (req as WithFormat)[FORMAT] = m[2] as Format;
  const rest = url.slice(m[0].length);
  return `/ws/${m[1]}${rest.startsWith('/') ? rest : `/${rest}`}`;
}

/** For answers outside `/ws` that are JSON documents (the catalog download files): their errors too. */
export function setFormat(req: IncomingMessage, format: Format): void {
  (req as WithFormat)[FORMAT] = format;
}

export function formatOf(req: IncomingMessage): Format {
  return (req as WithFormat)[FORMAT] ?? 'xml';
}

export const CONTENT_TYPES: Record<Format, string> = {
  xml: 'application/xml; charset=utf-8',
  json: 'application/json; charset=utf-8',
};
