import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setDisplayLanguage } from '../src/domain/account.js';
import { payOrder } from '../src/domain/orders.js';
import { displayLanguageOf, type Key, type Lang, LANGS, translator } from '../src/web/i18n/index.js';
import { createArticle, createProduct, type ProductFixture } from './fixtures.js';
import { startTestServer, type TestServer } from './helpers.js';
import { buy } from './trading-helpers.js';
import { WebClient } from './web-client.js';
import { type Person, person } from './web-people.js';

/**
 * The order page's refusals and the not-found pages speak the reader's language: the domain's
 * refusal carries a reason (`errors.<reason>`) the dictionaries translate, shown beside the form
 * that was sent; the API keeps its English description. Each language the site has, on SQLite
 * (the texts do not depend on the database).
 */

const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');

/** The `_form` error beside the form `id` (the one that was sent), or undefined. */
function errorBeside(html: string, id: string): string | undefined {
  const start = html.indexOf(`id="${id}"`);
  if (start === -1) return undefined;
  const form = html.slice(start, html.indexOf('</form>', start));
  return /<p class="error form-error" role="alert">([^<]*)<\/p>/.exec(form)?.[1];
}

/** The page-level refusal of an action the page no longer offers (above the action forms). */
function pageError(html: string): string | undefined {
  return /<p class="error form-error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
}

describe('translated refusals and not-found pages', () => {
  let server: TestServer;
  let seller: Person;
  let buyer: Person;
  let product: ProductFixture;

  async function paidOrder(): Promise<number> {
    const article = await createArticle(server, seller.user, product, { price: 250, count: 1 });
    const [order] = await buy(buyer.api, [[article.idArticle, 1]]);
    await payOrder(server.services, order!.idOrder);
    return order!.idOrder;
  }

  const speak = async (lang: Lang) => {
    for (const p of [seller, buyer])
      await setDisplayLanguage(server.services, p.user.idUser, displayLanguageOf(lang));
  };

  before(async () => {
    server = await startTestServer();
    seller = await person(server, 'seller');
    buyer = await person(server, 'buyer', { balanceCents: 100_000 });
    product = await createProduct(server, { enName: 'Polyglot Wyvern' });
  });
  after(() => server.close());

  for (const lang of LANGS) {
    it(`refuses order actions in the reader's language beside the form (${lang})`, async () => {
      const t = translator(lang);
      const text = (key: Key, params?: Record<string, string | number>) => escapeHtml(t(key, params));
      await speak(lang);
      const idOrder = await paidOrder();

      // The buyer may not cancel a paid order before the waiting period: refused beside the form.
      const early = await buyer.web.post(`/orders/${idOrder}/cancel`, { reason: 'too slow' });
      assert.equal(early.status, 400);
      const earlyText = errorBeside(early.text, 'action-cancel') ?? pageError(early.text);
      assert.ok(earlyText, 'a refusal on the page');
      const [prefix] = t('errors.order_cancel_not_yet').split('{from}');
      assert.ok(earlyText.startsWith(escapeHtml(prefix!)), earlyText);
      assert.doesNotMatch(early.text, /Cannot cancel order/);

      // An action the page does not offer (the buyer sending): the refusal above the forms.
      const send = await buyer.web.post(`/orders/${idOrder}/send`, { trackingNumber: 'X' });
      assert.equal(send.status, 400);
      assert.equal(pageError(send.text), text('errors.order_send_refused'));
      // The buyer's tracking number and evaluation: refused as well, in the same language.
      const tracking = await buyer.web.post(`/orders/${idOrder}/tracking`, { trackingNumber: 'X' });
      assert.equal(tracking.status, 400);
      assert.equal(pageError(tracking.text), text('errors.order_tracking_refused'));
      const grades = { evaluationGrade: '1', itemDescription: '1', packaging: '1', comment: '' };
      const evaluation = await seller.web.post(`/orders/${idOrder}/evaluation`, grades);
      assert.equal(evaluation.status, 400);
      assert.equal(pageError(evaluation.text), text('errors.evaluation_not_allowed'));

      // The seller asks for a cancellation; asking again, and the buyer asking too, are refused.
      const asked = await seller.web.post(`/orders/${idOrder}/request-cancellation`, { reason: 'no stock' });
      assert.equal(asked.status, 303);
      // Post/redirect/get: the page after the redirect says it in the same language.
      const after = await seller.web.get(asked.headers.location as string);
      assert.ok(after.text.includes(text('flash.order.requestCancellation')));
      const again = await seller.web.post(`/orders/${idOrder}/request-cancellation`, { reason: 'again' });
      assert.equal(again.status, 400);
      assert.equal(pageError(again.text), text('errors.cancellation_requested_already'));
      const mirrored = await buyer.web.post(`/orders/${idOrder}/request-cancellation`, { reason: 'me too' });
      assert.equal(mirrored.status, 400);
      assert.equal(
        errorBeside(mirrored.text, 'action-requestCancellation') ?? pageError(mirrored.text),
        text('errors.cancellation_requested_by_seller'),
      );
      // The seller accepting its own request: only the buyer's could be.
      const own = await seller.web.post(`/orders/${idOrder}/accept-cancellation`, {});
      assert.equal(own.status, 400);
      assert.equal(pageError(own.text), text('errors.cancellation_not_requested_by_buyer'));
      // The refused form keeps what was typed.
      if (errorBeside(mirrored.text, 'action-requestCancellation')) assert.match(mirrored.text, /me too/);

      // The API says the same refusal in English, as it always did.
      const api = await buyer.api.put(
        `/order/${idOrder}`,
        '<?xml version="1.0"?><request><action>send</action></request>',
        {
          json: true,
        },
      );
      assert.equal(api.status, 412);
      assert.match(api.json.mkm_error_description, /only the seller sends, and only a paid order/);
    });

    it(`says "not found" in the reader's language (${lang})`, async () => {
      const t = translator(lang);
      await speak(lang);
      const missing = await buyer.web.get('/orders/999999');
      assert.equal(missing.status, 404);
      assert.ok(missing.text.includes(escapeHtml(t('errors.unknown_order'))), missing.text);
      assert.ok(missing.text.includes(escapeHtml(t('error.title'))));
      const notAnId = await buyer.web.get('/orders/abc');
      assert.equal(notAnId.status, 404);
      assert.ok(notAnId.text.includes(escapeHtml(t('errors.unknown_order'))));
      // A path nothing answers: the browser's language.
      const anonymous = new WebClient(server, { acceptLanguage: `${lang};q=1, en;q=0.5` });
      const nowhere = await anonymous.get('/no-such-page');
      assert.equal(nowhere.status, 404);
      assert.ok(nowhere.text.includes(escapeHtml(t('error.notFound'))));
      assert.ok(nowhere.text.includes(escapeHtml(t('error.notFoundTitle'))));
    });
  }
});
