import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../errors.js';
import { CONTENT_TYPES, formatOf } from './format.js';
import { utf8Bytes } from './utf8.js';
import { type Tree, toXml } from './xml.js';

/** Writes a response tree in the request's format: the one place a body is rendered. */
export function sendTree(request: FastifyRequest, reply: FastifyReply, status: number, tree: Tree): void {
  const format = formatOf(request.raw);
  const body = format === 'json' ? JSON.stringify(tree) : toXml(tree);
  // What the request log keeps of a failure (src/http/request-log.ts).
  if (status >= 400) request.logResponse = body;
  reply.code(status).type(CONTENT_TYPES[format]).send(utf8Bytes(body));
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
