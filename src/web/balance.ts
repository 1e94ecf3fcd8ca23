import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getAccount } from '../domain/account.js';
import { ACTOR_BUYER, listOrders } from '../domain/order-views.js';
import { addTestMoney, payOwnOrder, TEST_MONEY_CENTS } from '../domain/payments.js';
import { formatMoney } from '../format.js';
import { idParam } from '../http/fields.js';
import type { Services } from '../services.js';
import { type Errors, formErrors, redirectWithFlash } from './forms.js';
import { CATALOG_PAGE_SIZE, pageOf, pager } from './paging.js';
import { render } from './render.js';
import { requireUser } from './session.js';

/**
 * The balance page (issue 17): the Account's `moneyDetails`, the buyer's bought orders with a
 * **Pay** button each (`payOwnOrder`: the function `cardbazaar order pay` runs, money balance first,
 * then bonus), and how money comes in: in the sandbox an "add test money" button (`user fund`'s
 * credit, refused in production by the domain), in production the operator's command.
 */
export function balancePages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };

  async function balancePage(
    request: FastifyRequest,
    reply: FastifyReply,
    errors: Errors = {},
    status = 200,
  ) {
    const idUser = request.user!.idUser;
    const window = pageOf(request, CATALOG_PAGE_SIZE);
    const [account, unpaid] = await Promise.all([
      getAccount(services, idUser),
      listOrders(services, idUser, ACTOR_BUYER, 'bought', window.offset, window.limit),
    ]);
    return render(
      request,
      reply,
      'balance',
      {
        title: 'balance.title',
        account,
        unpaid: unpaid.orders,
        pager: pager(request, window, unpaid.total, { path: '/balance' }),
        mode: services.config.mode,
        testMoney: TEST_MONEY_CENTS,
        errors,
      },
      status,
    );
  }

  app.get('/balance', signedIn, async (request, reply) => balancePage(request, reply));

  app.post('/balance/test-money', form, async (request, reply) => {
    await addTestMoney(services, services.config.mode, request.user!.idUser);
    return redirectWithFlash(reply, '/balance', 'flash.testMoneyAdded', {
      amount: formatMoney(TEST_MONEY_CENTS, request.lang),
    });
  });

  app.post('/balance/orders/:idOrder/pay', form, async (request, reply) => {
    const idOrder = idParam(request.params as Record<string, string>, 'idOrder');
    try {
      await payOwnOrder(services, request.user!.idUser, idOrder);
      return redirectWithFlash(reply, '/balance', 'flash.orderPaid', { idOrder });
    } catch (err) {
      // Another user's order does not exist for this buyer: the error page's 404.
      if ((err as { status?: number }).status === 404) throw err;
      const message = Object.values(formErrors(request.t, err))[0] ?? '';
      return balancePage(request, reply, { [`order-${idOrder}`]: message }, 400);
    }
  });
}
