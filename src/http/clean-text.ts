import { badRequest } from '../errors.js';

/**
 * Characters no text in the marketplace may hold: C0 controls other than tab, line feed and carriage
 * return, and the non-characters U+FFFE/U+FFFF. XML 1.0 cannot carry them, so a stored one would
 * make every later XML answer that shows it unreadable to clients, and PostgreSQL refuses NUL
 * outright (a 500 instead of a 400).
 */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

type Tree = string | Tree[] | { [key: string]: Tree } | undefined | null | number | boolean;

function firstDirty(tree: Tree, name: string): string | undefined {
  if (typeof tree === 'string') return FORBIDDEN.test(tree) ? name : undefined;
  if (Array.isArray(tree)) {
    for (const item of tree) {
      const hit = firstDirty(item, name);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  if (tree !== null && typeof tree === 'object') {
    // for…in, own keys only: the same keys in the same order as Object.keys, without an array per
    // object (every request checks its params and query, nearly always a handful of keys or none).
    for (const key in tree) {
      if (!Object.hasOwn(tree, key)) continue;
      if (FORBIDDEN.test(key)) return key;
      const hit = firstDirty(tree[key], key);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/** Refuses, with a 400 naming the field, any path parameter, query value or body text holding one. */
export function assertCleanText(parts: { params?: unknown; query?: unknown; body?: unknown }): void {
  // The three parts in turn, without an array of them per request.
  refuseDirty(firstDirty(parts.params as Tree, ''));
  refuseDirty(firstDirty(parts.query as Tree, ''));
  refuseDirty(firstDirty(parts.body as Tree, ''));
}

function refuseDirty(field: string | undefined): void {
  if (field !== undefined) {
    throw badRequest(
      `"${field}" contains a control character (such as NUL) that no text may hold.`,
      field === '' ? {} : { field },
    );
  }
}
