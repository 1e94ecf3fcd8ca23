import type { Command } from 'commander';
import type { OrderView } from '../domain/order-views.js';
import { payOrder, settleLost } from '../domain/orders.js';
import { simulatePurchase } from '../domain/simulate.js';
import { formatCents } from '../format.js';
import { CliError, printJson, reportErrors, withServices } from './context.js';

/** What the CLI prints of an order: the facts an operator checks, not the whole entity. */
function summary(v: OrderView) {
  const o = v.order;
  return {
    idOrder: o.idOrder,
    state: o.state,
    seller: v.seller.username,
    buyer: v.buyer.username,
    articleCount: o.articleCount,
    articleValue: formatCents(o.articleValue),
    shipping: `${o.shippingMethodName} ${formatCents(o.shippingPrice)}`,
    totalValue: formatCents(o.totalValue),
    ...(o.state === 'lost' ? { reason: o.cancellationReason } : {}),
    ...(o.state === 'paid' || o.state === 'sent'
      ? { paidFromMoney: formatCents(o.paidFromMoney), paidFromBonus: formatCents(o.paidFromBonus) }
      : {}),
  };
}

export function registerOrderCommands(program: Command): void {
  const order = program.command('order').description('Orders.');

  order
    .command('pay <idOrder>')
    .description(
      "Pay a bought order from the buyer's balance (money balance first, then bonus); the order holds the amount until reception.",
    )
    .action(
      reportErrors(async (idOrder: string, _opts: unknown, cmd: Command) => {
        if (!/^\d{1,10}$/.test(idOrder)) throw new CliError(`"${idOrder}" is not an order id.`);
        await withServices(cmd, async (services) => {
          printJson(summary(await payOrder(services, Number(idOrder))));
        });
      }),
    );

  order
    .command('lost <idOrder>')
    .description(
      "Settle a sent order as lost (the parcel never arrived): the buyer gets back what the order held, the seller's loss is counted.",
    )
    .option('--reason <text>', "why (default: the buyer's report, if any)")
    .action(
      reportErrors(async (idOrder: string, opts: { reason?: string }, cmd: Command) => {
        if (!/^\d{1,10}$/.test(idOrder)) throw new CliError(`"${idOrder}" is not an order id.`);
        await withServices(cmd, async (services) => {
          printJson(summary(await settleLost(services, Number(idOrder), opts.reason)));
        });
      }),
    );

  const simulate = program.command('simulate').description('Sandbox helpers that act as other users.');
  simulate
    .command('purchase')
    .description(
      "Sandbox: the demo buyer `sandbox-buyer` buys N copies of a seller's articles (and pays, with --pay), so the seller's tools have orders to send.",
    )
    .requiredOption('--seller <username>', 'whose articles to buy')
    .requiredOption('--articles <n>', 'how many copies to buy (at most 100 articles)')
    .option('--pay', 'also pay the orders, topping up the buyer as needed')
    .action(
      reportErrors(async (opts: { seller: string; articles: string; pay?: boolean }, cmd: Command) => {
        if (!/^\d{1,6}$/.test(opts.articles) || Number(opts.articles) < 1) {
          throw new CliError('--articles must be a positive integer.');
        }
        await withServices(cmd, async (services) => {
          if (services.config.mode === 'production') {
            throw new CliError('simulate is a sandbox helper: it is not available in production.');
          }
          const result = await simulatePurchase(
            services,
            opts.seller,
            Number(opts.articles),
            opts.pay === true,
          );
          printJson({
            buyer: result.buyer.username,
            toppedUp: formatCents(result.toppedUp),
            orders: result.orders.map(summary),
          });
        });
      }),
    );
}
