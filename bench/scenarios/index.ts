import type { Scenario } from '../scenario.js';
import { accountNoLimitsScenario, accountScenario } from './account.js';
import { messageThreadScenario } from './messages.js';
import { stockPostScenario, stockPutScenario } from './stock.js';

/** Every benchmark scenario, in the order `npm run bench` runs them. */
export const scenarios: Scenario<never>[] = [
  accountScenario as Scenario<never>,
  accountNoLimitsScenario as Scenario<never>,
  messageThreadScenario as Scenario<never>,
  stockPutScenario as Scenario<never>,
  stockPostScenario as Scenario<never>,
];
