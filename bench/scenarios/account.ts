import { describeApps } from '../../src/auth/apps.js';
import type { ClientCredentials } from '../../src/auth/client.js';
import { seedDemo } from '../../src/seed/index.js';
import { findUserByUsername } from '../../src/store/users.js';
import type { Scenario } from '../scenario.js';

/**
 * GET /ws/v2.0/account for the demo seller: the authenticated hot path (issue: first benchmark), with
 * the request limits on (memory store) as a server runs by default.
 */
export const accountScenario: Scenario<ClientCredentials> = {
  name: 'GET /account',
  description: 'signed GET /ws/v2.0/account (OAuth verification, limits, account query, XML)',
  async prepare(services) {
    if (!(await findUserByUsername(services.database.db, 'demo-seller'))) await seedDemo(services);
    const seller = await findUserByUsername(services.database.db, 'demo-seller');
    const app = (await describeApps(services, seller!.idUser)).find((a) => a.kind === 'dedicated')!;
    const token = app.accessTokens[0]!;
    return {
      appToken: app.appToken,
      appSecret: app.appSecret,
      accessToken: token.token,
      accessTokenSecret: token.secret,
    };
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
