import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { ManualClock, OffsetClock } from '../../src/clock.js';
import { type Config, testConfig } from '../../src/config.js';
import { createUser } from '../../src/domain/users.js';
import { createServices, type Services } from '../../src/services.js';
import type { User } from '../../src/store/schema.js';
import {
  createTestApp,
  signedHeader,
  type TestCredentials,
  type TestServer,
  xmlRequest,
} from '../helpers.js';

/**
 * Browser tests: a real server on port 0 and Debian's Chromium (`/usr/bin/chromium`, package
 * `chromium`) driven by playwright-core, which brings no browser of its own. Every page a test
 * visits is saved as a screenshot in `test/browser/screenshots/` (ignored by git) for a reviewer.
 * The helpers below are the set-up every story shares: `useBrowser` (server and browser around a
 * suite), `person` (a user with a password and a dedicated app), `signIn`, `signedFetch` (the API
 * as a client program sees it), `sellerWithStock`, and the sign-up and app pages in `register`
 * and `createAppOnPage`.
 * Without Chromium the suites are skipped with a message naming the package, unless
 * CARDBAZAAR_REQUIRE_BROWSER=1 (`.ci/run` sets it), which makes a missing browser a failure.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(import.meta.dirname, 'screenshots');

export const NO_BROWSER = existsSync(CHROMIUM)
  ? undefined
  : `Chromium is not installed at ${CHROMIUM} (Debian package \`chromium\`: apt-get install chromium)`;

if (NO_BROWSER && process.env.CARDBAZAAR_REQUIRE_BROWSER === '1') {
  throw new Error(`${NO_BROWSER}, and CARDBAZAAR_REQUIRE_BROWSER=1 requires the browser tests to run.`);
}

export interface BrowserServer {
  url: string;
  services: Services;
  clock: ManualClock;
  /** Every route the application registered, as `GET /path/:param` (the tour checks it visits every page). */
  routes: string[];
  close(): Promise<void>;
}

/** The whole application, listening on 127.0.0.1 on a free port. */
export async function startBrowserServer(config: Partial<Config> = {}): Promise<BrowserServer> {
  const clock = new ManualClock(Date.now());
  const services = await createServices(testConfig(config), { clock, wallClock: new OffsetClock(0) });
  const routes: string[] = [];
  const app = await buildApp(services, {
    onRoute: ({ method, url }) => {
      for (const m of [method].flat()) routes.push(`${m} ${url}`);
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    clock,
    routes,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

/** The window sizes every page is pictured at. */
export const DESKTOP = { width: 1200, height: 900 };
export const PHONE = { width: 390, height: 844 };

export interface BrowserSession {
  browser: Browser;
  /** A new page (its own cookies) of the given width; every page it loads is screenshotted. */
  newPage(name: string, options?: { width?: number; height?: number; locale?: string }): Promise<Page>;
  /** A picture of the page as it is now (`fullPage: false`: the window only, for very long pages). */
  shot(page: Page, name?: string, options?: { fullPage?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/** `suite-07-phone-products_12_minCondition_EX.png`: the order, the window's name, the address. */
function shotName(suite: string, n: number, name: string, url: string): string {
  const u = new URL(url);
  const where =
    `${u.pathname}${u.search}`
      .replace(/[^a-z0-9]+/gi, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 60) || 'home';
  return `${suite}-${String(n).padStart(3, '0')}-${name}-${where}.png`;
}

export async function launchBrowser(suite: string): Promise<BrowserSession> {
  // playwright-core starts Chromium with a fresh temporary --user-data-dir of its own (it refuses
  // the flag in `args`), and removes it on close.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  // This suite's pictures of an earlier run go, so the folder shows the last run only.
  for (const f of readdirSync(SCREENSHOTS)) if (f.startsWith(`${suite}-`)) rmSync(join(SCREENSHOTS, f));
  let shot = 0;
  const names = new WeakMap<Page, string>();
  const take = async (page: Page, name: string, fullPage = true) => {
    const n = ++shot;
    // A bounded wait: a picture for a reviewer must not hang a story (seen once in CI right after a
    // history navigation).
    const png = await page.screenshot({ fullPage, timeout: 10_000 });
    // Named once taken: a test that moved on at once may have navigated meanwhile, and the name
    // must say what the picture shows.
    writeFileSync(join(SCREENSHOTS, shotName(suite, n, name, page.url())), png);
  };
  return {
    browser,
    async newPage(name, options = {}) {
      const context: BrowserContext = await browser.newContext({
        viewport: { width: options.width ?? DESKTOP.width, height: options.height ?? DESKTOP.height },
        locale: options.locale ?? 'en-GB',
      });
      const page = await context.newPage();
      names.set(page, name);
      page.on('load', () => {
        take(page, name).catch(() => {});
      });
      return page;
    },
    async shot(page, name, options = {}) {
      await take(page, name ?? names.get(page) ?? 'page', options.fullPage);
    },
    async close() {
      await browser.close();
    },
  };
}

/**
 * A server and a browser around the suite it is called in (`before`/`after`): the suite's tests
 * read `ctx.server` and `ctx.chrome`.
 */
export function useBrowser(
  suite: string,
  config: Partial<Config> = {},
): { readonly server: BrowserServer; readonly chrome: BrowserSession } {
  let server: BrowserServer | undefined;
  let chrome: BrowserSession | undefined;
  before(async () => {
    server = await startBrowserServer(config);
    chrome = await launchBrowser(suite);
  });
  after(async () => {
    await chrome?.close();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error('the browser server is not started yet');
      return server;
    },
    get chrome() {
      if (!chrome) throw new Error('the browser is not launched yet');
      return chrome;
    },
  };
}

/** A request through the signed API, as a client program makes it (JSON answers). */
export async function signedFetch(
  server: BrowserServer,
  cred: TestCredentials,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; json: any }> {
  const url = `${server.url}/ws/v2.0/output.json${path}`;
  const res = await fetch(url, {
    method,
    headers: {
      authorization: signedHeader(cred, method, url),
      ...(body ? { 'content-type': 'application/xml' } : {}),
    },
    body,
  });
  return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
}

export const PASSWORD = 'browser story password';

/** A private account with a home address, the website password `PASSWORD` and a dedicated app. */
export async function person(
  server: BrowserServer,
  username: string,
  { country = 'D', balanceCents = 0 }: { country?: string; balanceCents?: number } = {},
): Promise<{ user: User; cred: TestCredentials }> {
  const user = await createUser(server.services, {
    username,
    country,
    accountType: 'private',
    balanceCents,
    firstName: username,
    lastName: 'Tester',
    street: 'Kartenweg 3',
    zip: '10115',
    city: 'Berlin',
    passwordHash: await hashPassword(PASSWORD),
  });
  return { user, cred: await createTestApp(server as unknown as TestServer, user) };
}

/** Signs in on the login page and waits for the page it goes on to. */
export async function signIn(
  page: Page,
  server: BrowserServer,
  username: string,
  next = '/profile',
  password = PASSWORD,
): Promise<void> {
  await page.goto(`${server.url}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}${next}`);
}

/** One `<article>` of a `POST /stock` body (English, no flags). */
export const stockXml = (idProduct: number, price: string, condition: string, count = 1) =>
  `<article><idProduct>${idProduct}</idProduct><idLanguage>1</idLanguage><comments>from the tool</comments><count>${count}</count><price>${price}</price><condition>${condition}</condition><isFoil>false</isFoil><isSigned>false</isSigned><isAltered>false</isAltered><isPlayset>false</isPlayset></article>`;

/**
 * A seller (see `person`) whose stock tool listed these articles through the signed API; their
 * ids in the same order.
 */
export async function sellerWithStock(
  server: BrowserServer,
  username: string,
  articles: { idProduct: number; price: string; condition: string; count?: number }[],
  options: { country?: string; balanceCents?: number } = {},
): Promise<{ user: User; cred: TestCredentials; idArticles: number[] }> {
  const seller = await person(server, username, options);
  const listed = await signedFetch(
    server,
    seller.cred,
    'POST',
    '/stock',
    xmlRequest(articles.map((a) => stockXml(a.idProduct, a.price, a.condition, a.count)).join('')),
  );
  if (listed.status !== 200)
    throw new Error(`POST /stock answered ${listed.status}: ${JSON.stringify(listed.json)}`);
  const idArticles = (listed.json.inserted as { idArticle: { idArticle: number } }[]).map(
    (i) => i.idArticle.idArticle,
  );
  return { ...seller, idArticles };
}

/** Signs up on the register page (country Germany) and waits for the profile. */
export async function register(page: Page, server: BrowserServer, username: string, password: string) {
  await page.goto(`${server.url}/register`);
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Email address').fill(`${username}@example.org`);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Country').selectOption('D');
  await page.getByRole('button', { name: 'Create the account' }).click();
  await page.waitForURL(`${server.url}/profile`);
}

/** Creates an app on the profile pages and reads its credentials off the page. */
export async function createAppOnPage(
  page: Page,
  server: BrowserServer,
  kind: string,
  name: string,
  callbackUrl?: string,
): Promise<TestCredentials> {
  await page.goto(`${server.url}/profile/apps/new`);
  await page.locator(`input[name=kind][value=${kind}]`).check();
  await page.getByLabel('Name', { exact: true }).fill(name);
  if (callbackUrl) await page.getByLabel('Callback URL', { exact: true }).fill(callbackUrl);
  await page.getByRole('button', { name: 'Create the app' }).click();
  await page.waitForURL(/\/profile#app-\d+$/);
  const idApp = Number(/#app-(\d+)$/.exec(page.url())![1]);
  const card = page.locator(`#app-${idApp}`);
  const read = async (n: string) =>
    (await card.locator(`[data-credential=${n}]`).count())
      ? ((await card.locator(`[data-credential=${n}]`).textContent()) ?? '').trim()
      : '';
  return {
    idApp,
    kind: kind as TestCredentials['kind'],
    appToken: await read('appToken'),
    appSecret: await read('appSecret'),
    accessToken: await read('accessToken'),
    accessTokenSecret: await read('accessTokenSecret'),
    idUser: 0,
  };
}

/** A small HTTP server standing in for a third-party app's callback: it records what it received. */
export async function startCallbackServer(): Promise<{
  url: string;
  received: URL[];
  close(): Promise<void>;
}> {
  const received: URL[] = [];
  const server: Server = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Robot</title><h1>The robot got its request token.</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
