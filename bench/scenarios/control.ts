import type { Scenario } from '../scenario.js';

/**
 * The sandbox control API (`/_cardbazaar/`): what a test suite in another language calls around
 * every test instead of a CLI process (issue 32 asks each call to answer in under 20 ms). A fixed
 * CONTROL_TOKEN, so the harness knows the bearer token without reading the banner.
 */
const TOKEN = 'bench-control-token-0123456789';
const control = { token: TOKEN };
const credentials = { appToken: '', appSecret: '', accessToken: '', accessTokenSecret: '' };

/** GET /_cardbazaar/clock under load: the token check and one settings read, as JSON. */
export const controlClockScenario: Scenario<null> = {
  name: 'control: GET /_cardbazaar/clock',
  description: 'the control API reading the marketplace clock (bearer token, one settings row, JSON)',
  env: { CONTROL_TOKEN: TOKEN },
  prepare: async () => null,
  request: () => ({ method: 'GET', path: '/_cardbazaar/clock', credentials, control }),
  expectStatus: 200,
};

/**
 * A fault added and removed, one call after the other on one connection: each a write transaction,
 * and each changes the faults' version, which every server reloads from its next request.
 */
export const controlFaultScenario: Scenario<null> = {
  name: 'control: POST + DELETE a fault',
  description:
    'the control API adding a fault (the faults parser, a write) and clearing the faults, alternately, sequential',
  env: { CONTROL_TOKEN: TOKEN },
  prepare: async () => null,
  request: (_state, i) =>
    i % 2 === 0 || i < 0
      ? {
          method: 'POST',
          path: '/_cardbazaar/faults',
          body: JSON.stringify({ path: '/games', method: 'GET', status: 503 }),
          contentType: 'application/json',
          credentials,
          control,
        }
      : { method: 'DELETE', path: '/_cardbazaar/faults', credentials, control },
  expectStatus: [201, 204],
  sequential: { requests: 200 },
};
