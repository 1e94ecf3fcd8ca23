import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.js';
import { DATE_PATTERN, parseDateParam } from './dates.js';

describe('date parameters', () => {
  it('reads the reference example and its variants of the offset', () => {
    const t = Date.UTC(2017, 11, 8, 13, 41, 12);
    assert.equal(parseDateParam('2017-12-08T14:41:12+0100', 'startDate'), t);
    assert.equal(parseDateParam('2017-12-08T14:41:12+01:00', 'startDate'), t);
    assert.equal(parseDateParam('2017-12-08T14:41:12+01', 'startDate'), t);
    assert.equal(parseDateParam('2017-12-08T13:41:12Z', 'startDate'), t);
    assert.equal(parseDateParam('2017-12-08T08:41:12-0500', 'startDate'), t);
  });

  it('reads an unencoded plus (decoded to a space) as the plus it was', () => {
    assert.equal(parseDateParam('2017-12-08T14:41:12 0100', 'startDate'), Date.UTC(2017, 11, 8, 13, 41, 12));
  });

  it('reads a date alone as midnight and a time without offset in Berlin time', () => {
    // Winter: UTC+1; summer: UTC+2.
    assert.equal(parseDateParam('2017-12-08', 'startDate'), Date.UTC(2017, 11, 7, 23, 0, 0));
    assert.equal(parseDateParam('2019-08-23T14:30:04', 'startDate'), Date.UTC(2019, 7, 23, 12, 30, 4));
    assert.equal(parseDateParam('2019-08-23 14:30', 'startDate'), Date.UTC(2019, 7, 23, 12, 30, 0));
  });

  it('refuses what is not a date, naming the parameter', () => {
    for (const bad of [
      'yesterday',
      '2017-13-01',
      '2017-02-30',
      '2017-12-08T25:00',
      '08.12.2017',
      '',
      '1512740472',
    ]) {
      assert.throws(
        () => parseDateParam(bad, 'endDate'),
        (err: unknown) => err instanceof ApiError && err.status === 400 && err.field === 'endDate',
        bad,
      );
    }
  });

  it("has a pattern (the OpenAPI document's) that admits exactly what it reads, but for days a month lacks", () => {
    const re = new RegExp(DATE_PATTERN, 'u');
    const reads = (v: string) => {
      try {
        parseDateParam(v, 'startDate');
        return true;
      } catch {
        return false;
      }
    };
    for (const v of [
      '2017-12-08T14:41:12+0100',
      '2017-12-08T14:41:12 0100',
      '2017-12-08t14:41z',
      ' 2017-12-08 ',
      '2017-12-08+01',
      '2017-12-08T14:41:12.123456-02:30',
      '2017-12-08 14:41',
      '2017-13-08',
      '2017-12-08T24:00',
      '2017-12-08T14:61',
      '2017-12-08 01',
      '17-12-08',
      'yesterday',
      '2017-12-08T14',
      '2017-12-32',
    ])
      assert.equal(re.test(v), reads(v), v);
    assert.equal(re.test('2017-02-30'), true);
    assert.equal(reads('2017-02-30'), false);
  });
});
