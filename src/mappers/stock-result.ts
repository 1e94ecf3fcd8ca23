import type { XmlObject } from '../http/xml.js';

/**
 * The per-article outcomes of the bulk stock requests (reference §1.6): an article that failed
 * echoes what was sent (`tried`) with the reason; the article entity itself is mapped by the caller.
 */
export interface FailedArticle {
  tried: unknown;
  error: string;
}

/** `inserted[]` of `POST /stock`: the new (or merged-into) article under `idArticle`. */
export const mapInserted = (article: unknown) => ({ success: true, idArticle: article });

/** An entry of `inserted[]`, `notUpdatedArticles[]` or `failed[]` for an article that failed. */
export const mapFailedArticle = (f: FailedArticle) => ({ success: false, tried: f.tried, error: f.error });

/** `deleted[]` of `DELETE /stock`; a failure names the article and count as sent, and why. */
export function mapDeleted(r: { idArticle: number; count: number } | FailedArticle) {
  if ('error' in r) {
    return {
      idArticle: echoNumber(r.tried, 'idArticle'),
      count: echoNumber(r.tried, 'count') ?? echoNumber(r.tried, 'amount'),
      success: false,
      message: r.error,
    };
  }
  return { idArticle: r.idArticle, count: r.count, success: true };
}

/** An id or count from a failed article's request, as a number when it is one. */
function echoNumber(tried: unknown, name: string): number | string | null {
  const v = (tried as XmlObject)[name];
  if (typeof v !== 'string') return null;
  return /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : v;
}
