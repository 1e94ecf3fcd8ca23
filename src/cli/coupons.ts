import type { Command } from 'commander';
import { createCoupon } from '../domain/account.js';
import { parsePriceCents } from '../domain/money.js';
import { printJson, reportErrors, withServices } from './context.js';

export function registerCouponCommands(program: Command): void {
  program
    .command('coupon')
    .description('Coupons that users redeem with POST /account/coupon.')
    .command('create')
    .description('Create a single-use coupon crediting the bonus balance; prints its code.')
    .requiredOption('--value <amount>', 'value in EUR, e.g. 5.00')
    .option('--code <code>', 'the code (random when omitted)')
    .action(
      reportErrors(async (opts: { value: string; code?: string }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const code = await createCoupon(services, parsePriceCents(opts.value, 'value'), opts.code);
          printJson({ couponCode: code, value: opts.value });
        });
      }),
    );
}
