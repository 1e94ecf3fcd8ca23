import type { ClientCredentials } from '../../src/auth/client.js';
import { dedicatedCredentials, ensureDemo } from '../prepare.js';
import type { Scenario } from '../scenario.js';

/**
 * GET /ws/v2.0/account for the demo seller: the authenticated hot path (issue: first benchmark), with
 * the request limits on (memory store) as a server runs by default.
 */
export const accountScenario: Scenario<ClientCredentials> = {
  name: 'GET /account',
  description: 'signed GET /ws/v2.0/account (OAuth verification, limits, account query, XML)',
  async prepare(services) {
    await ensureDemo(services);
    return dedicatedCredentials(services, 'demo-seller');
  },
  request: (credentials) => ({ method: 'GET', path: '/account', credentials }),
  expectStatus: 200,
};

/** The same request with the request limits off: against the scenario above, what the limiter costs. */
export const accountNoLimitsScenario: Scenario<ClientCredentials> = {
  ...accountScenario,
  name: 'GET /account (limits off)',
  description: 'signed GET /ws/v2.0/account with LIMITS_ENABLED=false, to compare with the limiter on',
  env: { LIMITS_ENABLED: 'false' },
};

/**
 * The same request with the request log off (`REQUEST_LOG_ROWS=0`): against the first scenario,
 * what recording every request costs the hot path (the issue allows 5%).
 */
export const accountNoRequestLogScenario: Scenario<ClientCredentials> = {
  ...accountScenario,
  name: 'GET /account (request log off)',
  description: 'signed GET /ws/v2.0/account with REQUEST_LOG_ROWS=0, to compare with the request log on',
  env: { REQUEST_LOG_ROWS: '0' },
};
