import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { payOrder } from '../src/domain/orders.js';
import {
  createArticle,
  createArticles,
  createMetaproduct,
  createProduct,
  type ProductFixture,
} from './fixtures.js';
import { DIALECTS, startTestServer, type TestServer, xmlRequest } from './helpers.js';
import { articleCount, buy, orderAction } from './trading-helpers.js';
import { textOf } from './web-client.js';
import { type Person, person } from './web-people.js';

/**
 * The trading pages through HTTP, as a browser without JavaScript uses them (`WebClient`): orders
 * as buyer and seller with exactly the actions the state machine allows, the seller's stock and
 * its file, messages, and wants lists. Each write is read back through the signed API, and each
 * API write shows on the pages. Hostile cases: no CSRF token (403), someone else's ids (404),
 * markup in texts (rendered as text); each leaves everything as it was.
 */

/** The ids of the action forms an order page offers. */
const offered = (html: string) => [...html.matchAll(/id="action-(\w+)"/g)].map((m) => m[1]).sort();

for (const dialect of DIALECTS) {
  describe(`the trading pages (${dialect})`, () => {
    let server: TestServer;
    let seller: Person;
    let buyer: Person;
    let stranger: Person;
    let product: ProductFixture;

    before(async () => {
      server = await startTestServer({ dialect });
      seller = await person(server, 'seller');
      buyer = await person(server, 'buyer', { balanceCents: 10_000 });
      stranger = await person(server, 'stranger', { balanceCents: 10_000 });
      product = await createProduct(server, { enName: 'Pagefinder Dragon' });
    });
    after(() => server.close());

    async function paidOrder(price = 250) {
      const article = await createArticle(server, seller.user, product, { price, count: 3 });
      const [order] = await buy(buyer.api, [[article.idArticle, 1]]);
      await payOrder(server.services, order!.idOrder);
      return { idOrder: order!.idOrder, article };
    }

    it('lists orders by role and state, paginated, and shows an order to its two parties only', async () => {
      const { idOrder } = await paidOrder();
      const sold = await seller.web.get('/orders?actor=seller&state=paid');
      assert.equal(sold.status, 200);
      assert.match(sold.text, new RegExp(`id="order-${idOrder}"`));
      assert.match(sold.text, new RegExp(buyer.user.username));
      // 2,50 € … the total in the reader's locale (English: €x.xx).
      assert.match(textOf(sold.text), /€\d+\.\d\d/);
      const bought = await buyer.web.get('/orders?actor=buyer&state=paid');
      assert.match(bought.text, new RegExp(`id="order-${idOrder}"`));
      const none = await buyer.web.get('/orders?actor=buyer&state=sent');
      assert.doesNotMatch(none.text, new RegExp(`id="order-${idOrder}"`));
      const page = await seller.web.get(`/orders/${idOrder}`);
      assert.equal(page.status, 200);
      // The counterparty's address: the seller sees the buyer's shipping address and email.
      assert.match(page.text, /Teststraße 1/);
      assert.match(page.text, new RegExp(`${buyer.user.username}@`));
      // Someone else's order: 404, as if it did not exist, for reading and for acting.
      const other = await stranger.web.get(`/orders/${idOrder}`);
      assert.equal(other.status, 404);
      assert.doesNotMatch(other.text, /Teststraße/);
      const acted = await stranger.web.post(`/orders/${idOrder}/send`, { trackingNumber: 'X' });
      assert.equal(acted.status, 404);
      const api = await seller.api.get(`/order/${idOrder}`, { json: true });
      assert.equal(api.json.order.state.state, 'paid');
    });

    it('offers exactly the allowed actions; sending on the page reads as sent in the API, and back', async () => {
      const { idOrder } = await paidOrder();
      const asSeller = await seller.web.get(`/orders/${idOrder}`);
      assert.deepEqual(offered(asSeller.text), ['requestCancellation', 'send']);
      const asBuyer = await buyer.web.get(`/orders/${idOrder}`);
      // The buyer may cancel a paid order only after the waiting period: not yet.
      assert.deepEqual(offered(asBuyer.text), ['requestCancellation']);
      // An action the page does not offer is refused with the API's own description; nothing changes.
      const refused = await buyer.web.post(`/orders/${idOrder}/send`, { trackingNumber: 'X' });
      assert.equal(refused.status, 400);
      assert.match(textOf(refused.text), /only the seller sends, and only a paid order/);
      // Without the CSRF token: 403, nothing changed.
      const forged = await seller.web.post(`/orders/${idOrder}/send`, { _csrf: '', trackingNumber: 'T1' });
      assert.equal(forged.status, 403);
      assert.equal(
        (await seller.api.get(`/order/${idOrder}`, { json: true })).json.order.state.state,
        'paid',
      );
      // Too long a tracking number: the API's message beside the field, nothing changed.
      await seller.web.get(`/orders/${idOrder}`);
      const long = await seller.web.post(`/orders/${idOrder}/send`, { trackingNumber: 'x'.repeat(101) });
      assert.equal(long.status, 400);
      assert.match(long.text, /id="trackingNumber-error">At most 100 characters\./);
      assert.equal(
        (await seller.api.get(`/order/${idOrder}`, { json: true })).json.order.state.state,
        'paid',
      );

      const sent = await seller.web.post(`/orders/${idOrder}/send`, { trackingNumber: 'RR123<b>DE' });
      assert.equal(sent.status, 303);
      const api = await buyer.api.get(`/order/${idOrder}`, { json: true });
      assert.equal(api.json.order.state.state, 'sent');
      assert.equal(api.json.order.trackingNumber, 'RR123<b>DE');
      const after = await buyer.web.get(`/orders/${idOrder}`);
      assert.match(after.text, /RR123&lt;b&gt;DE/);
      assert.deepEqual(offered(after.text), ['confirmReception']);
      assert.deepEqual(offered((await seller.web.get(`/orders/${idOrder}`)).text), ['tracking']);

      // Reception through the API shows on the page: the buyer may now evaluate, and only that.
      const received = await buyer.api.put(`/order/${idOrder}`, orderAction('confirmReception'), {
        json: true,
      });
      assert.equal(received.status, 200);
      const evaluable = await buyer.web.get(`/orders/${idOrder}`);
      assert.match(evaluable.text, /data-state="received"/);
      assert.deepEqual(offered(evaluable.text), ['evaluate']);
      // A grade below "very good" needs a comment: the API's message beside the comment, nothing stored.
      const noComment = await buyer.web.post(`/orders/${idOrder}/evaluation`, {
        evaluationGrade: '2',
        itemDescription: '1',
        packaging: '1',
        speed: '1',
        comment: '',
      });
      assert.equal(noComment.status, 400);
      assert.match(
        noComment.text,
        /id="comment-error">A comment is required unless every grade is “very good”\./,
      );
      assert.equal((await buyer.api.get(`/order/${idOrder}`, { json: true })).json.order.evaluation, null);
      const evaluated = await buyer.web.post(`/orders/${idOrder}/evaluation`, {
        evaluationGrade: '2',
        itemDescription: '1',
        packaging: '1',
        speed: '1',
        comment: 'Fine <i>seller</i>',
      });
      assert.equal(evaluated.status, 303);
      const evaluation = (await seller.api.get(`/order/${idOrder}`, { json: true })).json.order.evaluation;
      assert.equal(evaluation.evaluationGrade, 2);
      assert.equal(evaluation.comment, 'Fine <i>seller</i>');
      const shown = await seller.web.get(`/orders/${idOrder}`);
      assert.match(shown.text, /Fine &lt;i&gt;seller&lt;\/i&gt;/);
      assert.deepEqual(offered((await buyer.web.get(`/orders/${idOrder}`)).text), []);
    });

    it("the seller corrects a sent order's tracking number on its page; the API reads it, others cannot", async () => {
      const { idOrder } = await paidOrder();
      const tracking = async () => {
        const json = (await buyer.api.get(`/order/${idOrder}`, { json: true })).json.order.trackingNumber;
        const xml = (await buyer.api.get(`/order/${idOrder}`)).text;
        const inXml = /<trackingNumber>([^<]*)<\/trackingNumber>/.exec(xml)?.[1] ?? '';
        assert.equal(inXml.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'), json ?? '');
        return json as string;
      };
      // Paid: the send form carries the number; no second form.
      assert.deepEqual(offered((await seller.web.get(`/orders/${idOrder}`)).text), [
        'requestCancellation',
        'send',
      ]);
      assert.equal((await seller.web.post(`/orders/${idOrder}/send`, { trackingNumber: 'LX1' })).status, 303);
      const page = await seller.web.get(`/orders/${idOrder}`);
      assert.deepEqual(offered(page.text), ['tracking']);
      assert.match(page.text, /id="trackingNumber"[^>]*value="LX1"/);
      // The buyer is offered no such form, and a forged one is refused with the API's reason.
      assert.deepEqual(offered((await buyer.web.get(`/orders/${idOrder}`)).text), ['confirmReception']);
      const byBuyer = await buyer.web.post(`/orders/${idOrder}/tracking`, { trackingNumber: 'EVIL' });
      assert.equal(byBuyer.status, 400);
      assert.match(textOf(byBuyer.text), /only the seller does, of a paid or sent order/);
      // Someone else's order: 404 as if it did not exist.
      const byStranger = await stranger.web.post(`/orders/${idOrder}/tracking`, { trackingNumber: 'EVIL' });
      assert.equal(byStranger.status, 404);
      assert.doesNotMatch(byStranger.text, /LX1|Teststraße/);
      // No CSRF token: 403.
      const forged = await seller.web.post(`/orders/${idOrder}/tracking`, {
        _csrf: '',
        trackingNumber: 'EVIL',
      });
      assert.equal(forged.status, 403);
      // Empty or too long: the API's message beside the field, what was typed kept.
      await seller.web.get(`/orders/${idOrder}`);
      const empty = await seller.web.post(`/orders/${idOrder}/tracking`, { trackingNumber: '  ' });
      assert.equal(empty.status, 400);
      assert.match(empty.text, /id="trackingNumber-error">This field is required\./);
      const long = await seller.web.post(`/orders/${idOrder}/tracking`, { trackingNumber: 'y'.repeat(101) });
      assert.equal(long.status, 400);
      assert.match(long.text, /id="trackingNumber-error">At most 100 characters\./);
      assert.match(long.text, /value="y{101}"/);
      assert.equal(await tracking(), 'LX1', 'nothing changed by the refused forms');

      const changed = await seller.web.post(`/orders/${idOrder}/tracking`, { trackingNumber: ' RR9<b>DE ' });
      assert.equal(changed.status, 303);
      assert.equal(changed.headers.location, `/orders/${idOrder}`);
      assert.equal(await tracking(), 'RR9<b>DE');
      const shown = await buyer.web.get(`/orders/${idOrder}`);
      assert.match(shown.text, /data-tracking>RR9&lt;b&gt;DE</);
      assert.match(
        textOf((await seller.web.get(`/orders/${idOrder}`)).text),
        /The tracking number is changed/,
      );
      // Received: the number is final, no form any more.
      await buyer.api.put(`/order/${idOrder}`, orderAction('confirmReception'));
      assert.deepEqual(offered((await seller.web.get(`/orders/${idOrder}`)).text), []);
      const late = await seller.web.post(`/orders/${idOrder}/tracking`, { trackingNumber: 'LATE' });
      assert.equal(late.status, 400);
      assert.equal(await tracking(), 'RR9<b>DE');
    });

    it('requests and accepts a cancellation with a reason, relisting the copies', async () => {
      const { idOrder, article } = await paidOrder();
      const before = await articleCount(server, article.idArticle);
      await buyer.web.get(`/orders/${idOrder}`);
      const empty = await buyer.web.post(`/orders/${idOrder}/request-cancellation`, { reason: '' });
      assert.equal(empty.status, 400);
      assert.match(empty.text, /id="reason-error">This field is required\./);
      const asked = await buyer.web.post(`/orders/${idOrder}/request-cancellation`, {
        reason: 'Changed my mind',
      });
      assert.equal(asked.status, 303);
      const page = await seller.web.get(`/orders/${idOrder}`);
      assert.match(page.text, /Changed my mind/);
      assert.deepEqual(offered(page.text), ['acceptCancellation', 'send']);
      const accepted = await seller.web.post(`/orders/${idOrder}/accept-cancellation`, { relist: 'true' });
      assert.equal(accepted.status, 303);
      const api = await buyer.api.get(`/order/${idOrder}`, { json: true });
      assert.equal(api.json.order.state.state, 'cancelled');
      assert.equal(await articleCount(server, article.idArticle), (before ?? 0) + 1);
    });

    it('shows the stock with its filters; API writes appear and page writes reach the API', async () => {
      const other = await createProduct(server, { enName: 'Stockpage Goblin' });
      // Written by a client program through the signed API …
      const posted = await seller.api.post(
        '/stock',
        xmlRequest(
          `<article><idProduct>${other.idProduct}</idProduct><idLanguage>3</idLanguage><price>4.20</price><count>2</count><comments>&lt;b&gt;mint&lt;/b&gt;</comments></article>`,
        ),
        { json: true },
      );
      assert.equal(posted.status, 200, posted.text);
      const idArticle = posted.json.inserted[0].idArticle.idArticle as number;
      // … it shows on the page, filtered by name and language, comment as text.
      const page = await seller.web.get('/stock?name=Stockpage&idLanguage=3');
      assert.match(page.text, new RegExp(`id="article-${idArticle}"`));
      assert.match(page.text, /&lt;b&gt;mint&lt;\/b&gt;/);
      assert.doesNotMatch(page.text, /Pagefinder Dragon/);
      const filteredOut = await seller.web.get('/stock?name=Stockpage&idLanguage=2');
      assert.doesNotMatch(filteredOut.text, new RegExp(`id="article-${idArticle}"`));

      // Add on the page after finding the product by name.
      const found = await seller.web.get('/stock/new?search=Stockpage');
      assert.match(found.text, new RegExp(`/stock/new\\?idProduct=${other.idProduct}`));
      await seller.web.get(`/stock/new?idProduct=${other.idProduct}`);
      const bad = await seller.web.post('/stock/new', {
        idProduct: String(other.idProduct),
        count: '1',
        price: 'cheap',
        idLanguage: '1',
        condition: 'EX',
      });
      assert.equal(bad.status, 400);
      assert.match(bad.text, /id="price-error">/);
      const beforeRows = (await seller.api.get(`/stock/products/${other.idProduct}`, { json: true })).json
        .article.length;
      assert.equal(beforeRows, 1);
      const added = await seller.web.post('/stock/new', {
        idProduct: String(other.idProduct),
        count: '3',
        price: '1.75',
        idLanguage: '1',
        condition: 'EX',
        isFoil: 'true',
        comments: '',
      });
      assert.equal(added.status, 303, added.text);
      const idNew = Number(/\/stock\/(\d+)$/.exec(added.location ?? '')?.[1]);
      const read = await seller.api.get(`/stock/article/${idNew}`, { json: true });
      assert.equal(read.json.article.price, 1.75);
      assert.equal(read.json.article.count, 3);
      assert.equal(read.json.article.condition, 'EX');
      assert.equal(read.json.article.isFoil, true);

      // Change the price, then the count; the API reads both.
      await seller.web.get(`/stock/${idNew}`);
      const repriced = await seller.web.post(`/stock/${idNew}`, {
        price: '2.05',
        idLanguage: '1',
        condition: 'EX',
        isFoil: 'true',
        comments: 'now',
      });
      assert.equal(repriced.status, 303, repriced.text);
      const counted = await seller.web.post(`/stock/${idNew}/count`, { count: '5' });
      assert.equal(counted.status, 303, counted.text);
      const changed = await seller.api.get(`/stock/article/${idNew}`, { json: true });
      assert.equal(changed.json.article.price, 2.05);
      assert.equal(changed.json.article.count, 5);
      assert.equal(changed.json.article.comments, 'now');
      // A bad condition: the API's message beside it, nothing changed.
      const wrong = await seller.web.post(`/stock/${idNew}`, {
        price: '9.99',
        idLanguage: '1',
        condition: 'XX',
      });
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /id="condition-error">Choose a condition from the list\./);
      assert.equal(
        (await seller.api.get(`/stock/article/${idNew}`, { json: true })).json.article.price,
        2.05,
      );

      // Someone else's article: 404 to read, change or delete; it stays as it was.
      assert.equal((await stranger.web.get(`/stock/${idNew}`)).status, 404);
      await stranger.web.get('/stock');
      assert.equal((await stranger.web.post(`/stock/${idNew}`, { price: '0.01' })).status, 404);
      assert.equal((await stranger.web.post(`/stock/${idNew}/delete`)).status, 404);
      // No CSRF token: 403.
      assert.equal((await seller.web.post(`/stock/${idNew}/delete`, { _csrf: '' })).status, 403);
      assert.equal(await articleCount(server, idNew), 5);

      const deleted = await seller.web.post(`/stock/${idNew}/delete`);
      assert.equal(deleted.status, 303);
      assert.equal(await articleCount(server, idNew), undefined);
    });

    it('downloads the stock file and uploads one with per-line results', async () => {
      const file = await seller.web.get('/stock/file.csv?idGame=1');
      assert.equal(file.status, 200);
      assert.match(String(file.headers['content-type']), /text\/csv/);
      assert.match(file.text, /^"idArticle";"idProduct";"English Name"/);
      const lines = file.text.trim().split('\n');
      assert.ok(lines.length >= 2, file.text);
      const target = await createProduct(server, { enName: 'Uploaded Wurm' });
      const header = lines[0]!;
      const upload = [
        header,
        `"";"${target.idProduct}";"Uploaded Wurm";"";"";"";"0.90";"1";"NM";"X";"";"";"";"from file";"2";"1";"1";"EUR"`,
        `"";"999999";"Nothing";"";"";"";"0.90";"1";"NM";"";"";"";"";"";"1";"1";"1";"EUR"`,
      ].join('\n');
      await seller.web.get('/stock/file');
      const res = await seller.web.post('/stock/file', { csv: upload });
      assert.equal(res.status, 200, res.text);
      assert.match(res.text, /data-line="2"[^>]*>|class="ok" data-line="2"/);
      assert.match(textOf(res.text), /There is no such card\./);
      const stock = await seller.api.get(`/stock/products/${target.idProduct}`, { json: true });
      assert.equal(stock.json.article.length, 1);
      assert.equal(stock.json.article[0].price, 0.9);
      assert.equal(stock.json.article[0].isFoil, true);
      assert.equal(stock.json.article[0].comments, 'from file');
      // A file without the columns: the form's message, nothing written.
      const broken = await seller.web.post('/stock/file', { csv: '"a";"b"\n"1";"2"' });
      assert.equal(broken.status, 400);
      assert.match(broken.text, /id="csv-error">The header line has no “idProduct” column\./);
    });

    it('messages: threads, unread counts in the header, writing, deleting, markup as text', async () => {
      await seller.web.get('/messages');
      const unknown = await seller.web.post('/messages', { username: 'nobody-here-xyz', message: 'hi' });
      assert.equal(unknown.status, 400);
      assert.match(unknown.text, /id="username-error">There is no such user\./);
      const sent = await seller.web.post('/messages', {
        username: buyer.user.username,
        message: 'Hello <script>x</script>',
      });
      assert.equal(sent.status, 303);
      const header = await buyer.web.get('/orders');
      assert.match(header.text, /data-unread="1"/);
      const list = await buyer.web.get('/messages');
      assert.match(list.text, new RegExp(`id="thread-${seller.user.idUser}" class="unread"`));
      const thread = await buyer.web.get(`/messages/${seller.user.idUser}`);
      assert.match(thread.text, /Hello &lt;script&gt;x&lt;\/script&gt;/);
      assert.doesNotMatch(thread.text, /<script>x/);
      // Read now: the header no longer counts it, and the API agrees.
      assert.doesNotMatch((await buyer.web.get('/orders')).text, /data-unread=/);
      const api = await buyer.api.get(`/account/messages/${seller.user.idUser}`, { json: true });
      assert.equal(api.json.message.at(-1).text, 'Hello <script>x</script>');
      assert.equal(api.json.message.at(-1).unread, false);
      // A reply through the API appears on the seller's page.
      await buyer.api.post(
        `/account/messages/${seller.user.idUser}`,
        xmlRequest('<message>Thanks!</message>'),
        { json: true },
      );
      const reply = await seller.web.get(`/messages/${seller.user.idUser === 0 ? 0 : buyer.user.idUser}`);
      assert.match(reply.text, /Thanks!/);
      const idMessage = /id="message-([0-9a-f]{24})"/.exec(reply.text)![1]!;
      // Empty message: the API's description beside the field.
      const empty = await seller.web.post(`/messages/${buyer.user.idUser}`, { message: '  ' });
      assert.equal(empty.status, 400);
      assert.match(empty.text, /id="message-error">The message is empty/);
      // Someone else's message id: 404, and the message stays.
      await stranger.web.get('/messages');
      const foreign = await stranger.web.post(`/messages/${buyer.user.idUser}/${idMessage}/delete`);
      assert.equal(foreign.status, 404);
      assert.equal(
        (await seller.web.post(`/messages/${buyer.user.idUser}/${idMessage}/delete`, { _csrf: '' })).status,
        403,
      );
      assert.match((await seller.web.get(`/messages/${buyer.user.idUser}`)).text, new RegExp(idMessage));
      const removed = await seller.web.post(`/messages/${buyer.user.idUser}/${idMessage}/delete`);
      assert.equal(removed.status, 303);
      assert.doesNotMatch(
        (await seller.web.get(`/messages/${buyer.user.idUser}`)).text,
        new RegExp(idMessage),
      );
      // The buyer still has it: deleting is one's own side only.
      const kept = await buyer.api.get(`/account/messages/${seller.user.idUser}`, { json: true });
      assert.ok(kept.json.message.some((m: { idMessage: string }) => m.idMessage === idMessage));
    });

    it("pages the stock 25 at a time and speaks the reader's language and money", async () => {
      const many = await createProduct(server, { enName: 'Pagination Imp' });
      await createArticles(server, stranger.user, many, 30, (i) => ({
        price: 100 + i,
        comments: `imp ${i}`,
      }));
      const first = await stranger.web.get('/stock?name=Pagination');
      assert.equal([...first.text.matchAll(/id="article-\d+"/g)].length, 25);
      assert.match(first.text, /rel="next" href="\/stock\?name=Pagination&amp;page=2"/);
      const second = await stranger.web.get('/stock?name=Pagination&page=2');
      assert.equal([...second.text.matchAll(/id="article-\d+"/g)].length, 5);
      assert.match(second.text, /rel="prev"/);
      assert.doesNotMatch(second.text, /rel="next"/);
      const german = await stranger.web.get('/stock?name=Pagination&page=2&lang=de');
      assert.match(german.text, /Ihr Bestand/);
      assert.match(textOf(german.text), /1,2\d\s€/);
    });

    it('wants lists: create, rename, add with FROM, edit with codes, see matching offers', async () => {
      const meta = await createMetaproduct(server, 'Wanted Sphinx');
      const wanted = await createProduct(server, { enName: 'Wanted Sphinx', idMetaproduct: meta });
      await createArticle(server, seller.user, wanted, { price: 330, count: 2 });
      await createArticle(server, stranger.user, wanted, { price: 410, count: 1 });
      await buyer.web.get('/wants');
      const empty = await buyer.web.post('/wants', { name: '', idGame: '1' });
      assert.equal(empty.status, 400);
      assert.match(empty.text, /id="name-error">This field is required\./);
      const created = await buyer.web.post('/wants', { name: 'Sphinxes <3', idGame: '1' });
      assert.equal(created.status, 303);
      const idWantslist = Number(/\/wants\/(\d+)$/.exec(created.location ?? '')?.[1]);
      const renamed = await buyer.web.post(`/wants/${idWantslist}/rename`, { name: 'Sphinx <b>hunt</b>' });
      assert.equal(renamed.status, 303);
      const listPage = await buyer.web.get(`/wants/${idWantslist}?search=Wanted Sphinx`);
      assert.match(listPage.text, /Sphinx &lt;b&gt;hunt&lt;\/b&gt;/);
      assert.match(listPage.text, new RegExp(`idMetaproduct=${meta}`));
      await buyer.web.get(`/wants/${idWantslist}?idProduct=${wanted.idProduct}`);
      const badCode = await buyer.web.post(`/wants/${idWantslist}/items`, {
        target: `product:${wanted.idProduct}`,
        count: '1',
        wishPrice: 'cheap',
      });
      assert.equal(badCode.status, 400);
      assert.match(
        badCode.text,
        /id="wishPrice-error">Give a price \(1\.50\), \+0\.02, -0\.37, a percentage \(90%\), FROM or SELL\./,
      );
      const added = await buyer.web.post(`/wants/${idWantslist}/items`, {
        target: `product:${wanted.idProduct}`,
        count: '2',
        wishPrice: 'FROM',
        minCondition: 'EX',
        isFoil: 'any',
      });
      assert.equal(added.status, 303, added.text);
      const api = await buyer.api.get(`/wantslist/${idWantslist}`, { json: true });
      const item = api.json.wantslist.item[0];
      assert.equal(item.wishPrice, 3.3);
      assert.equal(api.json.wantslist.name, 'Sphinx <b>hunt</b>');
      const idWant = item.idWant as string;
      // -0.37 and 90% work from the wish price as it is.
      const lowered = await buyer.web.post(`/wants/${idWantslist}/items/${idWant}`, {
        count: '2',
        wishPrice: '-0.37',
      });
      assert.equal(lowered.status, 303);
      assert.equal(
        (await buyer.api.get(`/wantslist/${idWantslist}`, { json: true })).json.wantslist.item[0].wishPrice,
        2.93,
      );
      const percent = await buyer.web.post(`/wants/${idWantslist}/items/${idWant}`, {
        count: '2',
        wishPrice: '90%',
      });
      assert.equal(percent.status, 303);
      assert.equal(
        (await buyer.api.get(`/wantslist/${idWantslist}`, { json: true })).json.wantslist.item[0].wishPrice,
        2.64,
      );
      // A metaproduct with SELL and no price guide: the API's description, nothing added.
      const sell = await buyer.web.post(`/wants/${idWantslist}/items`, {
        target: `metaproduct:${meta}`,
        count: '1',
        wishPrice: 'SELL',
      });
      assert.equal(sell.status, 400);
      assert.match(sell.text, /SELL cannot be used: the price guide has no average selling price for it\./);
      assert.equal(
        (await buyer.api.get(`/wantslist/${idWantslist}`, { json: true })).json.wantslist.item.length,
        1,
      );
      // The matching offers, cheapest first.
      const offers = await buyer.web.get(`/wants/${idWantslist}/items/${idWant}`);
      assert.equal(offers.status, 200);
      const order = [...offers.text.matchAll(/id="offer-(\d+)"/g)].map((m) => m[1]);
      assert.equal(order.length, 2);
      assert.ok(offers.text.indexOf(seller.user.username) < offers.text.indexOf(stranger.user.username));
      // Someone else's list or item: 404, nothing changed.
      assert.equal((await stranger.web.get(`/wants/${idWantslist}`)).status, 404);
      assert.equal((await stranger.web.get(`/wants/${idWantslist}/items/${idWant}`)).status, 404);
      await stranger.web.get('/wants');
      assert.equal((await stranger.web.post(`/wants/${idWantslist}/delete`)).status, 404);
      assert.equal((await buyer.web.post(`/wants/${idWantslist}/delete`, { _csrf: '' })).status, 403);
      assert.equal((await buyer.api.get(`/wantslist/${idWantslist}`, { json: true })).status, 200);
    });
  });
}
