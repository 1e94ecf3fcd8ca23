import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../errors.js';
import { CONTENT_TYPES, formatOf } from './format.js';
import { utf8Bytes } from './utf8.js';
import { type Tree, toXml, toXmlBuffer } from './xml.js';

/** Writes a response tree in the request's format: the one place a body is rendered. */
export function sendTree(request: FastifyRequest, reply: FastifyReply, status: number, tree: Tree): void {
  const format = formatOf(request.raw);
  if (status >= 400) {
    const body = format === 'json' ? JSON.stringify(tree) : toXml(tree);
    // What the request log keeps of a failure (src/http/request-log.ts).
    request.logResponse = body;
    reply.code(status).type(CONTENT_TYPES[format]).send(body);
    return;
  }
  // The same bytes either way, without Node encoding one long string character by character:
  // XML is encoded element by element as it is written (`toXmlBuffer`), JSON in Latin-1 runs (`utf8Bytes`).
  reply
    .code(status)
    .type(CONTENT_TYPES[format])
    .send(format === 'json' ? utf8Bytes(JSON.stringify(tree)) : toXmlBuffer(tree));
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  description: string,
  field?: string,
  code?: string,
): void {
  request.logErrorCode = code ?? null;
  sendTree(request, reply, status, errorBody(status, description, field, code));
}
