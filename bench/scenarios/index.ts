import type { Scenario } from '../scenario.js';
import { accountNoLimitsScenario, accountNoRequestLogScenario, accountScenario } from './account.js';
import { messageThreadScenario } from './messages.js';
import { stockPostScenario, stockPutScenario } from './stock.js';
import { checkoutScenario } from './checkout.js';
import { orders1mLastScenario, orders1mScenario, orders10kScenario } from './orders.js';
import { checkoutWebhooksScenario } from './checkout-webhooks.js';
import { offersLargeScenario, offersSmallScenario, productSearchScenario } from './catalog.js';
import { productApiPageScenario, productHtmlPageScenario } from './product-page.js';
import { controlClockScenario, controlFaultScenario } from './control.js';
import {
  accountIdleMarketScenario,
  accountLiveMarketScenario,
  offersIdleMarketScenario,
  offersLiveMarketScenario,
} from './market.js';

/** Every benchmark scenario, in the order `npm run bench` runs them. */
export const scenarios: Scenario<never>[] = [
  accountScenario as Scenario<never>,
  accountNoLimitsScenario as Scenario<never>,
  accountNoRequestLogScenario as Scenario<never>,
  messageThreadScenario as Scenario<never>,
  stockPutScenario as Scenario<never>,
  stockPostScenario as Scenario<never>,
  orders10kScenario as Scenario<never>,
  orders1mScenario as Scenario<never>,
  orders1mLastScenario as Scenario<never>,
  checkoutScenario as Scenario<never>,
  checkoutWebhooksScenario as Scenario<never>,
  productSearchScenario as Scenario<never>,
  offersSmallScenario as Scenario<never>,
  offersLargeScenario as Scenario<never>,
  productApiPageScenario as Scenario<never>,
  productHtmlPageScenario as Scenario<never>,
  controlClockScenario as Scenario<never>,
  controlFaultScenario as Scenario<never>,
  // Idle and market alternate, so the two halves of each pair run close together.
  accountIdleMarketScenario as Scenario<never>,
  accountLiveMarketScenario as Scenario<never>,
  offersIdleMarketScenario as Scenario<never>,
  offersLiveMarketScenario as Scenario<never>,
];
