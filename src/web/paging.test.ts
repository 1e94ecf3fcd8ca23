import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { CATALOG_PAGE_SIZE, LIST_PAGE_SIZE, pageOf, pager } from './paging.js';

const requestFor = (url: string) =>
  ({ url, query: Object.fromEntries(new URL(url, 'http://x').searchParams) }) as unknown as FastifyRequest;

describe('website paging', () => {
  it('reads ?page=N into a window of the list’s page size', () => {
    assert.deepEqual(pageOf(requestFor('/stock?page=3'), LIST_PAGE_SIZE), { page: 3, offset: 50, limit: 25 });
    assert.deepEqual(pageOf(requestFor('/cards?search=x'), CATALOG_PAGE_SIZE), {
      page: 1,
      offset: 0,
      limit: 100,
    });
  });

  it('refuses an unreadable page on every list, naming the field, with a text the pages translate', () => {
    for (const url of [
      '/products/1?page=abc',
      '/stock?page=abc',
      '/orders?page=0',
      '/messages?page=100001',
    ]) {
      assert.throws(
        () => pageOf(requestFor(url), LIST_PAGE_SIZE),
        (e) => e instanceof ApiError && e.status === 400 && e.field === 'page' && e.reason === 'page_invalid',
      );
    }
    assert.equal(pageOf(requestFor('/stock?page='), CATALOG_PAGE_SIZE).page, 1);
  });

  it('links keep the filters, leave out empty ones, and page 1 has no page parameter', () => {
    const req = requestFor('/stock?name=Imp&idGame=&page=2');
    const p = pager(req, pageOf(req, LIST_PAGE_SIZE), 60);
    assert.equal(p.pages, 3);
    assert.equal(p.prev, '/stock?name=Imp');
    assert.equal(p.next, '/stock?name=Imp&page=3');
    assert.deepEqual([p.first, p.last], [26, 50]);
  });

  it('past the end links back to the last page; a re-rendered form links to the list’s own path', () => {
    const req = requestFor('/products/7/cart?minCondition=EX&page=9');
    const p = pager(req, pageOf(req, CATALOG_PAGE_SIZE), 150, { capped: true, path: '/products/7' });
    assert.equal(p.prev, '/products/7?minCondition=EX&page=2');
    assert.equal(p.next, undefined);
    assert.equal(p.capped, true);
    assert.deepEqual([p.first, p.last], [150, 150]);
  });
});
