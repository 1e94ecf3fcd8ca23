import type { Scenario } from '../scenario.js';
import { accountScenario } from './account.js';
import { offersLargeScenario, offersSmallScenario, productSearchScenario } from './catalog.js';

/** Every benchmark scenario, in the order `npm run bench` runs them. */
export const scenarios: Scenario<never>[] = [
  accountScenario as Scenario<never>,
  productSearchScenario as Scenario<never>,
  offersSmallScenario as Scenario<never>,
  offersLargeScenario as Scenario<never>,
];
