import { badRequest } from '../errors.js';
import type { XmlNode, XmlObject } from './xml.js';

/**
 * Reading typed values out of a parsed XML body or a query string, with a 400 that names the field
 * for anything that is not what the API documents. Bulk endpoints catch these per item.
 */
export type Fields = XmlObject | Record<string, string | string[] | undefined>;

function raw(obj: Fields | undefined, name: string): XmlNode | undefined {
  if (!obj || !Object.hasOwn(obj, name)) return undefined;
  return (obj as Record<string, XmlNode | undefined>)[name];
}

/** Every occurrence of a repeatable element, in order (one element is a list of one). */
export function list(obj: Fields | undefined, name: string): XmlNode[] {
  const v = raw(obj, name);
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Repeatable elements that contain elements (`<article>…</article>`). */
export function objects(obj: Fields | undefined, name: string): XmlObject[] {
  return list(obj, name).map((node) => {
    if (typeof node === 'string') {
      if (node.trim() === '') return {};
      throw badRequest(`Each <${name}> must contain elements, not text.`, { field: name });
    }
    if (Array.isArray(node)) throw badRequest(`<${name}> is malformed.`, { field: name });
    return node;
  });
}

/** Repeatable text values (`<couponCode>A</couponCode><couponCode>B</couponCode>`, `?x=1&x=2`). */
export function strings(obj: Fields | undefined, name: string): string[] {
  return list(obj, name).map((node) => {
    if (typeof node !== 'string') throw badRequest(`<${name}> must contain text.`, { field: name });
    return node;
  });
}

export function text(obj: Fields | undefined, name: string): string | undefined {
  const v = raw(obj, name);
  if (v === undefined) return undefined;
  if (Array.isArray(v))
    throw badRequest(`"${name}" may appear only once.`, { field: name, reason: 'repeated' });
  if (typeof v !== 'string')
    throw badRequest(`"${name}" must be a value, not nested elements.`, { field: name, reason: 'not_text' });
  return v;
}

export function requireText(obj: Fields | undefined, name: string): string {
  const v = text(obj, name);
  if (v === undefined || v.trim() === '')
    throw badRequest(`"${name}" is required.`, { field: name, reason: 'required' });
  return v;
}

/** Ids are 32-bit integer columns; a larger number is no id (and PostgreSQL refuses to compare it). */
export const MAX_ID = 2_147_483_647;

/** The largest `start` a collection reads (`src/http/pagination.ts`), 0-based in the query, 1-based in a path. */
export const MAX_START = 1_000_000_000;

/** The bounds of an integer no caller narrows (`parseInteger`); the OpenAPI document states them too. */
export const INTEGER_BOUNDS = { min: -MAX_ID, max: MAX_ID } as const;

export interface IntOptions {
  min?: number;
  max?: number;
}

/**
 * Every integer the API reads lands in (or is compared with) a 32-bit column, so that is the bound
 * unless the caller narrows it: PostgreSQL refuses a larger number outright, which would be a 500.
 */
export function parseInteger(
  value: string,
  name: string,
  { min = INTEGER_BOUNDS.min, max = INTEGER_BOUNDS.max }: IntOptions = {},
): number {
  const s = value.trim();
  if (!/^-?\d{1,15}$/.test(s))
    throw badRequest(`"${name}" must be an integer (got "${value}").`, {
      field: name,
      reason: 'not_integer',
    });
  const n = Number(s);
  if (n < min)
    throw badRequest(`"${name}" must be at least ${min} (got ${n}).`, {
      field: name,
      reason: 'too_small',
      params: { min },
    });
  if (n > max)
    throw badRequest(`"${name}" must be at most ${max} (got ${n}).`, {
      field: name,
      reason: 'too_large',
      params: { max },
    });
  return n;
}

export function integer(obj: Fields | undefined, name: string, options?: IntOptions): number | undefined {
  const v = text(obj, name);
  return v === undefined || v.trim() === '' ? undefined : parseInteger(v, name, options);
}

export function requireInteger(obj: Fields | undefined, name: string, options?: IntOptions): number {
  const v = integer(obj, name, options);
  if (v === undefined) throw badRequest(`"${name}" is required.`, { field: name, reason: 'required' });
  return v;
}

/** Only the literal strings true and false: anything else is an error, never a silent true. */
export function parseBoolean(value: string, name: string): boolean {
  const s = value.trim();
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw badRequest(`"${name}" must be true or false (got "${value}").`, {
    field: name,
    reason: 'not_boolean',
  });
}

export function boolean(obj: Fields | undefined, name: string): boolean | undefined {
  const v = text(obj, name);
  return v === undefined || v.trim() === '' ? undefined : parseBoolean(v, name);
}

/** A path parameter that must be a positive id. */
export function idParam(params: Record<string, string>, name: string): number {
  const v = params[name] ?? '';
  if (!/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > MAX_ID) {
    throw badRequest(`"${name}" must be a positive integer id (got "${v}").`, { field: name });
  }
  return Number(v);
}
