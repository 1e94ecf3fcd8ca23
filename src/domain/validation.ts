import { ApiError } from '../errors.js';

/**
 * What is wrong with the fields of a form (the website's), all at once: the page shows each message
 * beside its field. `code` names the problem for the pages' dictionaries (`errors.<code>` in
 * `src/web/i18n/`), `params` fill its placeholders, and `message` is the English text the API and
 * the CLI show. Thrown as a 400 ApiError, so an API route or a command that meets it answers as
 * for any bad input (the first field's message and name).
 */
export interface FieldProblem {
  code: string;
  message: string;
  params?: Record<string, string | number>;
}

export type FieldProblems = Record<string, FieldProblem>;

export class InvalidFields extends ApiError {
  constructor(readonly problems: FieldProblems) {
    const [field, first] = Object.entries(problems)[0] ?? [
      '',
      { code: 'invalid', message: 'Invalid input.' },
    ];
    super(400, first.message, { field, code: first.code });
    this.name = 'InvalidFields';
  }
}

/** Collects problems field by field; `throwIfAny` ends a check. */
export class FieldCheck {
  readonly problems: FieldProblems = {};

  add(field: string, code: string, message: string, params?: FieldProblem['params']): void {
    this.problems[field] ??= { code, message, ...(params ? { params } : {}) };
  }

  has(field: string): boolean {
    return field in this.problems;
  }

  throwIfAny(): void {
    if (Object.keys(this.problems).length > 0) throw new InvalidFields(this.problems);
  }
}
