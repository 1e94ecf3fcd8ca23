import { badRequest } from '../errors.js';
import { berlinOffsetMinutes } from '../format.js';

/**
 * Dates in query strings (`startDate`, `endDate` of the message search). The reference's own
 * example is `2017-12-08T14:41:12+0100`; accepted are ISO 8601 dates and times:
 *  - `2017-12-08` (midnight), `2017-12-08T14:41`, `2017-12-08T14:41:12`, optional fractions,
 *    a space in place of the `T`;
 *  - with an offset `Z`, `+01`, `+0100` or `+01:00`; without one, the time is the marketplace's
 *    (Europe/Berlin), as the API writes its own times.
 * A `+` sent unencoded reaches us as a space (form decoding); it is read as the `+` it was.
 * Anything else is a 400 naming the parameter. Returns epoch milliseconds.
 */
/**
 * The same dates for the OpenAPI document (a JSON Schema pattern has no flags, so both cases are
 * spelled out; a space before the offset is the unencoded `+`). What no pattern says: the day must
 * exist in its month (2017-02-30 is a 400).
 */
export const DATE_PATTERN =
  '^\\s*\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])(?:[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:[.,]\\d+)?)?(?:[Zz]|[+ -]\\d{2}(?::?\\d{2})?)?|[Zz]|[+-]\\d{2}(?::?\\d{2})?)?\\s*$';

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function parseDateParam(text: string, field: string): number {
  let s = text.trim();
  // `…T14:41:12 0100`: the client's unencoded plus.
  s = s.replace(/(T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)$/i, '$1+$2');
  const m = ISO.exec(s);
  if (!m) throw invalid(text, field);
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(sec);
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) throw invalid(text, field);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) throw invalid(text, field);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (zone === undefined) {
    // Wall-clock time in Berlin: the offset at the instant itself, found in two steps.
    const first = wall - berlinOffsetMinutes(wall) * 60_000;
    return wall - berlinOffsetMinutes(first) * 60_000;
  }
  if (zone.toUpperCase() === 'Z') return wall;
  const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const offset = (Number(zm[2]) * 60 + Number(zm[3] ?? 0)) * (zm[1] === '-' ? -1 : 1);
  if (Number(zm[2]) > 14 || Number(zm[3] ?? 0) > 59) throw invalid(text, field);
  return wall - offset * 60_000;
}

function invalid(text: string, field: string) {
  return badRequest(
    `"${field}" must be an ISO 8601 date or time such as 2017-12-08 or 2017-12-08T14:41:12+0100 (got "${text}").`,
    { field },
  );
}
