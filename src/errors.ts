import { STATUS_CODES } from 'node:http';
/**
 * The only way anything in cardbazaar answers with an error: throw an ApiError (from a route, the
 * domain or a hook) and the single error handler in `app.ts` renders it as the API's error body.
 * The domain may throw these too: they carry no HTTP machinery, only the status the API documents.
 */

export const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  202: 'Accepted',
  204: 'No Content',
  206: 'Partial Content',
  307: 'Temporary Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** RFC 2616 section links, as the real API's XML error body carries them. */
const RFC2616_SECTION: Record<number, string> = {
  400: '10.4.1',
  401: '10.4.2',
  403: '10.4.4',
  404: '10.4.5',
  405: '10.4.6',
  408: '10.4.9',
  410: '10.4.11',
  412: '10.4.13',
  413: '10.4.14',
  415: '10.4.16',
  417: '10.4.18',
  500: '10.5.1',
  501: '10.5.2',
  503: '10.5.4',
};

export interface ApiErrorOptions {
  /** The request element the error is about (`post_data_field`). */
  field?: string;
  /** A stable machine-readable code (`internal_error_code`). */
  code?: string;
  /** Extra response headers (e.g. `Retry-After`, the sandbox's base string). */
  headers?: Record<string, string>;
  /**
   * What the website's dictionaries call the problem (`errors.<reason>`, filled with `params`), so a
   * page says it in the reader's language. Never on the wire: `code` is what the API answers, and
   * most of its errors have none.
   */
  reason?: string;
  params?: Record<string, string | number>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly field: string | undefined;
  readonly code: string | undefined;
  readonly headers: Record<string, string>;
  readonly reason: string | undefined;
  readonly params: Record<string, string | number> | undefined;

  constructor(status: number, description: string, options: ApiErrorOptions = {}) {
    super(description);
    this.name = 'ApiError';
    this.status = status;
    this.field = options.field;
    this.code = options.code;
    this.headers = options.headers ?? {};
    this.reason = options.reason;
    this.params = options.params;
  }
}

/**
 * Several fields' problems found at once (a form's whole article, say): the API answers with the
 * first, as it did when reading stopped there; a page shows each beside its field.
 */
export class FieldErrors extends ApiError {
  constructor(readonly errors: readonly ApiError[]) {
    const first = errors[0]!;
    super(first.status, first.message, {
      field: first.field,
      code: first.code,
      headers: first.headers,
      reason: first.reason,
      params: first.params,
    });
    this.name = 'FieldErrors';
  }
}

/**
 * Reads every part of one input even after one fails, so a form shows each problem beside its
 * field; the API answers with the first, as when reading stopped there (the readers run in the
 * order given, the order the parts were always read in). Readers may take `input` instead of
 * closing over it (built once, not per input: a hundred articles a request).
 */
export function readEachField<T extends object, I = void>(
  readers: { [K in keyof T]-?: (input: I) => T[K] },
  input?: I,
): T {
  const out = {} as T;
  const errors: ApiError[] = [];
  // for…in over the readers (an object literal: its own keys, in Object.keys' order), without an
  // array of their names per input.
  for (const key in readers) {
    try {
      out[key] = readers[key](input as I);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new FieldErrors(errors);
  return out;
}

export const badRequest = (description: string, options?: ApiErrorOptions) =>
  new ApiError(400, description, options);
export const unauthorized = (description: string, options?: ApiErrorOptions) =>
  new ApiError(401, description, options);
export const forbidden = (description: string, options?: ApiErrorOptions) =>
  new ApiError(403, description, options);
export const notFound = (description: string, options?: ApiErrorOptions) =>
  new ApiError(404, description, options);
export const preconditionFailed = (description: string, options?: ApiErrorOptions) =>
  new ApiError(412, description, options);

/** The error entity: the same tree for XML and JSON, key order as the real API writes it. */
export function errorBody(status: number, description: string, field?: string, code?: string) {
  const section = RFC2616_SECTION[status];
  return {
    mkm_error_description: description,
    internal_error_code: code ?? null,
    post_data_field: field ?? null,
    http_status_code: status,
    // Statuses the server never answers by itself (an injected fault's 502, 418…): Node's name for them.
    http_status_code_description: STATUS_TEXT[status] ?? STATUS_CODES[status] ?? 'Error',
    rfc2616_description_link: section
      ? `https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec${section}`
      : null,
  };
}
