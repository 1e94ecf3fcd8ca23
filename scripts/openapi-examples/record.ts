import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import type { ClientCredentials } from '../../src/auth/client.js';
import { canonicalBaseString, percentEncode, sign, signingKey } from '../../src/auth/oauth.js';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { exportBuildsSettled } from '../../src/domain/exports.js';
import {
  type ExamplesFile,
  EXAMPLES_BASE_URL,
  type OperationExample,
  operationId,
} from '../../src/http/openapi.js';
import { Router } from '../../src/http/routing.js';
import { registerRoutes } from '../../src/routes/index.js';
import { credentialsOf } from '../../src/sandbox/document.js';
import { parseSteps, runFixture } from '../../src/sandbox/fixtures.js';
import { DEMO_USERS } from '../../src/seed/demo-users.js';
import { seedDemo } from '../../src/seed/index.js';
import { createServices, type Services } from '../../src/services.js';
import { findUserByUsername } from '../../src/store/users.js';
import { EXAMPLES, type ExampleRecipe, type Setup, type Values, type Who } from './operations.js';

/**
 * Records the example of every operation: a world of the demo data per request (copied from one
 * seeded database, so no example sees another's writes), the recipe's setup, then its request
 * signed with the server's own signing code and sent once in XML and once in JSON, each on a fresh
 * copy. Everything that could vary is fixed: both clocks stand at `EXAMPLE_TIME`, the server key
 * is fixed, nonces count, and `generate.ts` seeds the process's random source first.
 */
export const EXAMPLE_TIME = Date.parse('2026-03-02T10:00:00Z');
const SECRET_KEY = 'openapi-examples-openapi-examples-0123456789';
const HOST = new URL(EXAMPLES_BASE_URL).host;

/** Called before each world, so each one's random values depend on its recipe alone. */
export type Reseed = (label: string) => void;

const config = (databaseUrl: string) =>
  testConfig({ databaseUrl, secretKey: SECRET_KEY, logLevel: 'silent', demoData: false });

function authorization(method: string, url: string, cred: ClientCredentials, nonce: string): string {
  const u = new URL(url);
  const oauthParams: Array<[string, string]> = [
    ['oauth_consumer_key', cred.appToken],
    ['oauth_token', cred.accessToken],
    ['oauth_nonce', nonce],
    ['oauth_timestamp', String(Math.floor(EXAMPLE_TIME / 1000))],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_version', '1.0'],
  ];
  const base = canonicalBaseString({
    method,
    origin: u.origin,
    path: u.pathname,
    rawQuery: u.search.slice(1),
    oauthParams,
  });
  const signature = sign(base, signingKey(cred.appSecret, cred.accessTokenSecret));
  return (
    `OAuth realm="${u.origin}${u.pathname}", ` +
    oauthParams.map(([k, v]) => `${k}="${v}"`).join(', ') +
    `, oauth_signature="${percentEncode(signature)}"`
  );
}

const xmlBody = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<request>${inner}</request>`;

interface Answer {
  status: number;
  contentType: string;
  location?: string;
  body: string;
}

class World {
  private nonce = 0;
  private constructor(
    readonly services: Services,
    readonly clock: ManualClock,
    private readonly app: Awaited<ReturnType<typeof buildApp>>,
  ) {}

  static async open(databaseUrl: string): Promise<World> {
    const clock = new ManualClock(EXAMPLE_TIME);
    const services = await createServices(config(databaseUrl), {
      clock,
      wallClock: new ManualClock(EXAMPLE_TIME),
    });
    const app = await buildApp(services);
    await app.ready();
    return new World(services, clock, app);
  }

  async close() {
    await this.app.close();
    await this.services.close();
  }

  async credentials(username: string, kind: 'dedicated' | 'widget' | 'thirdParty' = 'dedicated') {
    const user = await findUserByUsername(this.services.database.db, username);
    if (!user) throw new Error(`no user ${username}`);
    // A third-party app's credentials are listed under the user its token acts for, among its owner's.
    const ids = [user.idUser];
    for (const { username: name } of DEMO_USERS) {
      const u = await findUserByUsername(this.services.database.db, name);
      if (u && u.idUser !== user.idUser) ids.push(u.idUser);
    }
    const found = (await credentialsOf(this.services, ids)).find((u) => u.idUser === user.idUser);
    const cred = found?.apps[kind];
    if (!cred) throw new Error(`${username} has no ${kind} app`);
    return cred;
  }

  async signer(who: Who): Promise<ClientCredentials | undefined> {
    if (who === 'anonymous') return undefined;
    if (typeof who === 'string') return this.credentials(who);
    if ('appOnly' in who) return { ...who.appOnly, accessToken: '', accessTokenSecret: '' };
    if ('kind' in who && 'username' in who) return this.credentials(who.username, who.kind);
    return who as ClientCredentials;
  }

  async send(who: Who, method: string, path: string, body: string | undefined, json: boolean) {
    const url = `${EXAMPLES_BASE_URL}/ws/v2.0${json ? '/output.json' : ''}${path}`;
    const cred = await this.signer(who);
    const headers: Record<string, string> = { host: HOST };
    if (cred) headers.authorization = authorization(method, url, cred, `example${++this.nonce}`);
    if (body !== undefined) headers['content-type'] = 'application/xml';
    const res = await this.app.inject({
      method: method as 'GET',
      url: url.slice(EXAMPLES_BASE_URL.length),
      headers,
      payload: body,
    });
    const answer: Answer = {
      status: res.statusCode,
      contentType: String(res.headers['content-type'] ?? ''),
      body: res.body,
      ...(typeof res.headers.location === 'string' ? { location: res.headers.location } : {}),
    };
    return { url, authorization: headers.authorization ?? null, answer };
  }

  setup(): Setup {
    return {
      services: this.services,
      clock: this.clock,
      fixture: async (steps) => (await runFixture(this.services, parseSteps({ steps }))).created as Values,
      call: async (who, method, path, body) => {
        const { answer } = await this.send(who, method, path, body && xmlBody(body), true);
        if (answer.status < 200 || answer.status > 299)
          throw new Error(`setup ${method} ${path} answered ${answer.status}: ${answer.body.slice(0, 400)}`);
        return answer.body ? JSON.parse(answer.body) : undefined;
      },
      credentials: (username, kind) => this.credentials(username, kind),
      settle: async () => {
        await this.services.events.deliverPending();
        await exportBuildsSettled();
        await this.services.events.deliverPending();
      },
    };
  }
}

/** One recipe's request in one format, on a fresh copy of the demo world. */
async function run(recipe: ExampleRecipe, json: boolean, template: string, dir: string, reseed: Reseed) {
  reseed(`${recipe.route} ${json ? 'json' : 'xml'}`);
  const file = join(dir, 'world.sqlite');
  rmSync(file, { force: true });
  copyFileSync(template, file);
  const world = await World.open(file);
  try {
    const values = recipe.setup ? await recipe.setup(world.setup()) : {};
    const who = typeof recipe.as === 'function' ? recipe.as(values) : recipe.as;
    const path = typeof recipe.path === 'function' ? recipe.path(values) : recipe.path;
    const inner = typeof recipe.body === 'function' ? recipe.body(values) : recipe.body;
    const method = recipe.route.split(' ')[0]!;
    const body = inner === undefined ? undefined : xmlBody(inner);
    const sent = await world.send(who, method, path, body, json);
    // An example shows an answer: an empty collection (204) or an error says the setup is wrong.
    if (sent.answer.status >= 400 || sent.answer.status === 204)
      throw new Error(
        `${recipe.route} (${json ? 'JSON' : 'XML'}) answered ${sent.answer.status}: ${sent.answer.body.slice(0, 600)}`,
      );
    return { method, path, body, ...sent };
  } finally {
    await world.close();
  }
}

export async function recordExamples(reseed: Reseed, log: (line: string) => void): Promise<ExamplesFile> {
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-examples-'));
  try {
    reseed('demo data');
    const template = join(dir, 'demo.sqlite');
    const seeding = await createServices(config(template), {
      clock: new ManualClock(EXAMPLE_TIME),
      wallClock: new ManualClock(EXAMPLE_TIME),
    });
    await seedDemo(seeding);
    await seeding.close();

    const router = new Router();
    registerRoutes(router, seeding);
    const routes = new Set(router.routeKeys());
    const recipes = new Map(EXAMPLES.map((r) => [r.route, r]));
    const missing = [...routes].filter((r) => !recipes.has(r));
    if (missing.length > 0) throw new Error(`no example recipe for ${missing.join(', ')}`);
    const unknown = [...recipes.keys()].filter((r) => !routes.has(r));
    if (unknown.length > 0) throw new Error(`example recipes for no route: ${unknown.join(', ')}`);

    const operations: Record<string, OperationExample> = {};
    for (const key of router.routeKeys()) {
      const recipe = recipes.get(key)!;
      const [method, path] = key.split(' ') as [string, string];
      log(`${key}`);
      const xml = await run(recipe, false, template, dir, reseed);
      const json = await run(recipe, true, template, dir, reseed);
      const example: OperationExample = {
        route: key,
        summary: recipe.summary,
        request: {
          method: xml.method,
          path: xml.path,
          authorization: xml.authorization,
          body: xml.body ?? null,
        },
        status: xml.answer.status,
        ...(xml.answer.location ? { location: xml.answer.location } : {}),
      };
      if (recipe.omitBody) {
        example.omitted = recipe.omitBody;
      } else if (xml.answer.body !== '') {
        if (xml.answer.contentType.startsWith('application/xml')) {
          example.xml = xml.answer.body;
          example.json = JSON.parse(json.answer.body);
        } else {
          // A document of its own (a file): one media type, the same in both formats.
          example.mediaType = xml.answer.contentType.split(';')[0]!;
          example.body = xml.answer.contentType.startsWith('application/json')
            ? JSON.parse(xml.answer.body)
            : xml.answer.body;
        }
      }
      operations[operationId(method, path)] = example;
    }
    return {
      about:
        'Generated by `npm run openapi:examples` (scripts/openapi-examples/) from the demo data: do not edit. ' +
        'The OpenAPI document shows each as its operation’s example.',
      baseUrl: EXAMPLES_BASE_URL,
      time: new Date(EXAMPLE_TIME).toISOString(),
      operations,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
