import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../errors.js';
import { CONTENT_TYPES, formatOf } from './format.js';
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
  // XML as bytes: the same bytes, written without first joining one long string (`toXmlBuffer`).
  reply
    .code(status)
    .type(CONTENT_TYPES[format])
    .send(format === 'json' ? JSON.stringify(tree) : toXmlBuffer(tree));
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
