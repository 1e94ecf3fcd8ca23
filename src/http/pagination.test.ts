import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { pagedResponse, pageFromPath, pageFromQuery } from './pagination.js';
import type { ApiRequest } from './routing.js';

const config = testConfig();
const fakeRequest = (originalUrl: string) =>
  ({
    raw: { headers: { host: 'api.example.test' }, protocol: 'http', originalUrl },
  }) as unknown as ApiRequest;
const tree = () => ({ item: [] });

describe('pagination', () => {
  it('reads the 0-based query form and the 1-based path form', () => {
    assert.deepEqual(pageFromQuery({}), { offset: 0, limit: 100, paginated: false, form: 'query' });
    assert.deepEqual(pageFromQuery({ start: '0', maxResults: '30' }), {
      offset: 0,
      limit: 30,
      paginated: true,
      form: 'query',
    });
    assert.deepEqual(pageFromQuery({ start: '200' }), {
      offset: 200,
      limit: 100,
      paginated: true,
      form: 'query',
    });
    assert.deepEqual(pageFromPath(undefined), { offset: 0, limit: 100, paginated: false, form: 'path' });
    assert.deepEqual(pageFromPath('101'), { offset: 100, limit: 100, paginated: true, form: 'path' });
  });

  it('refuses bad values with 400', () => {
    for (const q of [
      { start: '-1' },
      { start: 'x' },
      { maxResults: '0' },
      { maxResults: '101' },
      { start: ['1', '2'] },
    ]) {
      assert.throws(
        () => pageFromQuery(q),
        (e: unknown) => e instanceof ApiError && e.status === 400,
        JSON.stringify(q),
      );
    }
    assert.throws(() => pageFromPath('0'), ApiError);
    assert.throws(() => pageFromPath('abc'), ApiError);
  });

  it('answers 200 for a whole collection, 206 with Content-Range for a page of a larger one, 204 when empty', () => {
    const req = fakeRequest('/ws/v2.0/x');
    const whole = pagedResponse(req, config, pageFromQuery({}), 30, 30, tree);
    assert.equal(whole.status, 200);
    const page = pagedResponse(
      req,
      config,
      pageFromQuery({ start: '100', maxResults: '100' }),
      250,
      100,
      tree,
    );
    assert.equal(page.status, 206);
    assert.equal(page.headers?.['Content-Range'], '100-199/250');
    const last = pagedResponse(req, config, pageFromPath('201'), 250, 50, tree);
    assert.equal(last.status, 206);
    assert.equal(last.headers?.['Content-Range'], '200-249/250');
    const firstOfAll = pagedResponse(
      req,
      config,
      pageFromQuery({ start: '0', maxResults: '100' }),
      30,
      30,
      tree,
    );
    assert.equal(firstOfAll.status, 200);
    const capped = pagedResponse(
      req,
      config,
      pageFromQuery({ start: '0', maxResults: '100' }),
      1000,
      100,
      tree,
      {
        totalLabel: '1000+',
      },
    );
    assert.equal(capped.status, 206);
    assert.equal(capped.headers?.['Content-Range'], '0-99/1000+');
    const empty = pagedResponse(req, config, pageFromQuery({}), 0, 0, tree);
    assert.equal(empty.status, 204);
    assert.equal(empty.body, null);
    const beyond = pagedResponse(req, config, pageFromQuery({ start: '500' }), 250, 0, tree);
    assert.equal(beyond.status, 204);
  });

  it('redirects an unpaginated request over the limit with 307 to an absolute first-page URL', () => {
    const query = pagedResponse(
      fakeRequest('/ws/v2.0/output.json/products/find?search=black+lotus&idGame=1'),
      config,
      pageFromQuery({ search: 'black lotus', idGame: '1' }),
      150,
      0,
      tree,
    );
    assert.equal(query.status, 307);
    assert.equal(
      query.headers?.Location,
      'http://api.example.test/ws/v2.0/output.json/products/find?search=black+lotus&idGame=1&start=0&maxResults=100',
    );
    const path = pagedResponse(
      fakeRequest('/ws/v2.0/orders/seller/paid'),
      config,
      pageFromPath(undefined),
      101,
      0,
      tree,
    );
    assert.equal(path.status, 307);
    assert.equal(path.headers?.Location, 'http://api.example.test/ws/v2.0/orders/seller/paid/1');
  });
});
