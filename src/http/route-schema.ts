import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { PRICE_PATTERN } from '../domain/money.js';
import { COUNTRY_CODES } from '../domain/users.js';
import { MAX_ID, MAX_START } from './fields.js';

/**
 * What a route declares about itself next to its handler (`r.get(path, { kinds, schema }, …)`):
 * parameters, request body and responses, as TypeBox schemas (JSON Schema). `src/http/openapi.ts`
 * turns every route's declaration into the OpenAPI document, and the contract tests hold every
 * response the suites receive to it.
 *
 * The field parsers (`src/http/fields.ts`) stay the validators: they answer the API's error body
 * with `post_data_field`, per item in bulk requests, which a generic schema validator would not.
 * Where a schema states a rule they check (an id's bounds, a page's size), it takes the same
 * constant, so the two cannot say different things.
 */
export interface RouteSchema {
  summary: string;
  description?: string;
  /** Path parameters; those not given are documented as strings. */
  params?: TProperties;
  /** Query parameters (all optional unless the schema says otherwise). */
  query?: TProperties;
  /** The query parameters a request must give. */
  requiredQuery?: string[];
  /**
   * Query parameters of which a request must give at least one (OpenAPI cannot say so of
   * parameters): the document lists them as `x-required-one-of` and in the operation's description.
   */
  requiredOneOf?: string[];
  /** The content of the `<request>` element (JSON bodies are not accepted: the API reads XML). */
  body?: TSchema;
  /** Success answers by status; null: no body (204, 303, 307). */
  responses: Record<number, TSchema | null>;
  /**
   * A collection answered a page at a time (`src/http/pagination.ts`): 206 with `Content-Range`
   * for a part, 204 when empty, 307 with `Location` when an unpaginated request is too large.
   */
  paginated?: boolean;
  /** Error statuses this route answers beyond those every route may (400, 401, 403, 404, 429…). */
  errors?: number[];
  /** Statuses whose body is not the XML/JSON tree (a file): its media type. */
  mediaType?: string;
}

/** A positive id, as `idParam` reads it (`src/http/fields.ts`, the same bounds). */
export const IdParam = Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'A positive id.' });

/** `start` and `maxResults` of a collection (`pageFromQuery`): `maxResults` at most `max`. */
export const pageQuery = (max = 100): TProperties => ({
  start: Type.Integer({
    minimum: 0,
    maximum: MAX_START,
    description: 'The 0-based index of the first entity.',
  }),
  maxResults: Type.Integer({ minimum: 1, maximum: max, description: 'Entities per page.' }),
});

/** The 1-based start of a collection's path form (`/stock/:start`, `pageFromPath`). */
export const PathStart = Type.Integer({
  minimum: 1,
  maximum: MAX_START,
  description: 'The 1-based index of the first entity.',
});

/** A search string: required, and not blank (the finds trim it and refuse what is left empty). */
export const SearchParam = (description: string) =>
  Type.String({ minLength: 1, pattern: '\\S', description });

/** A required text element: not blank (the readers trim it), at most `max` characters. */
export const RequiredText = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '\\S', description });

/** A price as `parsePriceCents` reads it: euros, at most two decimals, `.` or `,`. */
export const PriceText = (description: string) => Type.String({ pattern: PRICE_PATTERN, description });

/** A price filter of a query: blank is as if not given (`integer`, `text` and the like read it so). */
export const PriceFilter = (description: string) =>
  Type.String({ pattern: `^\\s*$|${PRICE_PATTERN}`, description: `${description} Blank: as if not given.` });

/** A country as `normalizeCountry` reads it: a code (any case; `DE` and `UK` too). */
export const CountryText = Type.String({
  enum: [...COUNTRY_CODES, 'DE', 'UK'],
  description: 'A country code, any case (`D` or `DE` for Germany, `GB` or `UK`).',
});

/** A request body's content: elements by name. */
export const RequestBody = (properties: TProperties, description?: string): TObject =>
  Type.Object(properties, { description });

/** A response tree's root; its elements by name. */
export const Answer = (properties: TProperties): TObject => Type.Object(properties);

/** `true` or `false` as a query parameter reads it (`parseBoolean`: nothing else). */
export const BoolParam = Type.Boolean({ description: '`true` or `false`.' });
