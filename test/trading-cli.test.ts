import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from './cli-helpers.js';
import { startFileTestServer, type TestServer } from './helpers.js';
import { balances, createTrader, offer, type Trader } from './trading-helpers.js';

/** Runs `cardbazaar …` against the test server's database file. */
const cli = (databaseUrl: string, ...args: string[]) => runCli('--database-url', databaseUrl, ...args);

describe('the trading commands (sqlite file)', () => {
  let file: string;
  let server: TestServer;
  let seller: Trader;
  before(async () => {
    const started = await startFileTestServer();
    server = started;
    file = started.databaseUrl;
    seller = await createTrader(server, { name: 'shop' });
    await offer(server, seller.user, { count: 2, price: 300 });
    await offer(server, seller.user, { count: 5, price: 150 });
  });
  after(() => server.close());

  it('simulate purchase --pay makes the sandbox buyer buy and pay; the seller sees paid orders', async () => {
    const res = await cli(
      file,
      'simulate',
      'purchase',
      '--seller',
      seller.user.username,
      '--articles',
      '3',
      '--pay',
    );
    assert.equal(res.code, 0, res.err);
    const printed = JSON.parse(res.out);
    assert.equal(printed.buyer, 'sandbox-buyer');
    assert.equal(printed.orders.length, 1);
    assert.equal(printed.orders[0].state, 'paid');
    assert.equal(printed.orders[0].articleCount, 3);
    // Two copies at 3.00 and one at 1.50, plus a domestic standard letter.
    assert.equal(printed.orders[0].totalValue, '8.65');
    assert.equal(printed.toppedUp, '8.65', 'the new buyer had nothing: it was topped up');
    const list = await seller.api.get('/orders/seller/paid', { json: true });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.order[0].idOrder, printed.orders[0].idOrder);
    assert.equal(list.json.order[0].buyer.username, 'sandbox-buyer');
    const send = await seller.api.put(
      `/order/${printed.orders[0].idOrder}`,
      '<request><action>send</action></request>',
    );
    assert.equal(send.status, 200, send.text);
  });

  it('simulate purchase without --pay leaves a bought order, which order pay pays', async () => {
    const bought = await cli(
      file,
      'simulate',
      'purchase',
      '--seller',
      seller.user.username,
      '--articles',
      '1',
    );
    assert.equal(bought.code, 0, bought.err);
    const order = JSON.parse(bought.out).orders[0];
    assert.equal(order.state, 'bought');
    const broke = await cli(file, 'order', 'pay', String(order.idOrder));
    assert.equal(broke.code, 1);
    assert.match(broke.err, /balance is less than/);
    const fund = await cli(file, 'user', 'fund', 'sandbox-buyer', '10.00');
    assert.equal(fund.code, 0, fund.err);
    assert.equal(JSON.parse(fund.out).moneyDetails.moneyBalance, 10);
    const paid = await cli(file, 'order', 'pay', String(order.idOrder));
    assert.equal(paid.code, 0, paid.err);
    const printed = JSON.parse(paid.out);
    assert.equal(printed.state, 'paid');
    assert.equal(printed.paidFromMoney, order.totalValue);
    const again = await cli(file, 'order', 'pay', String(order.idOrder));
    assert.equal(again.code, 1);
    assert.match(again.err, /is paid: only a bought order can be paid/);
  });

  it('order lost settles a sent order: the buyer is refunded; other states and bad ids are refused', async () => {
    const res = await cli(
      file,
      'simulate',
      'purchase',
      '--seller',
      seller.user.username,
      '--articles',
      '1',
      '--pay',
    );
    assert.equal(res.code, 0, res.err);
    const order = JSON.parse(res.out).orders[0];
    const early = await cli(file, 'order', 'lost', String(order.idOrder));
    assert.equal(early.code, 1);
    assert.match(early.err, /is paid: only a sent order can be lost/);
    const sent = await seller.api.put(`/order/${order.idOrder}`, '<request><action>send</action></request>');
    assert.equal(sent.status, 200, sent.text);
    const buyer = await server.services.database.db
      .selectFrom('users')
      .select(['idUser', 'moneyBalance'])
      .where('username', '=', 'sandbox-buyer')
      .executeTakeFirstOrThrow();
    const lost = await cli(file, 'order', 'lost', String(order.idOrder), '--reason', 'Carrier lost it');
    assert.equal(lost.code, 0, lost.err);
    const printed = JSON.parse(lost.out);
    assert.equal(printed.state, 'lost');
    assert.equal(printed.reason, 'Carrier lost it');
    const after = await balances(server, buyer.idUser);
    assert.equal(
      after.moneyBalance,
      buyer.moneyBalance + Math.round(Number(order.totalValue) * 100),
      'the total went back to the buyer',
    );
    const listed = await seller.api.get('/orders/seller/lost', { json: true });
    assert.equal(listed.json.order[0].idOrder, order.idOrder);
    assert.match((await cli(file, 'order', 'lost', 'x')).err, /not an order id/);
    assert.match((await cli(file, 'order', 'lost', '999999')).err, /no order 999999/);
  });

  it('order pay names unknown orders and bad ids', async () => {
    assert.match((await cli(file, 'order', 'pay', '999999')).err, /no order 999999/);
    assert.match((await cli(file, 'order', 'pay', 'x')).err, /not an order id/);
  });

  it('simulate purchase refuses unknown sellers, empty stock and production', async () => {
    assert.match(
      (await cli(file, 'simulate', 'purchase', '--seller', 'nobody', '--articles', '1')).err,
      /no user "nobody"/,
    );
    const empty = await createTrader(server, { name: 'empty' });
    assert.match(
      (await cli(file, 'simulate', 'purchase', '--seller', empty.user.username, '--articles', '1')).err,
      /no articles available/,
    );
    assert.match(
      (await cli(file, 'simulate', 'purchase', '--seller', 'x', '--articles', '0')).err,
      /positive integer/,
    );
    const prod = await cli(
      file,
      '--production',
      '--secret-key',
      'a-production-secret-key-of-enough-length-0123',
      '--public-base-url',
      'https://api.example.org',
      'simulate',
      'purchase',
      '--seller',
      seller.user.username,
      '--articles',
      '1',
    );
    assert.equal(prod.code, 1);
    assert.match(prod.err, /not available in production/);
    const before = await balances(server, seller.user.idUser);
    assert.ok(before.moneyBalance >= 0);
  });
});
