import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { ManualClock, OffsetClock } from '../../src/clock.js';
import { type Config, testConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/services.js';

/**
 * Browser tests: a real server on port 0 and Debian's Chromium (`/usr/bin/chromium`, package
 * `chromium`) driven by playwright-core, which brings no browser of its own. Every page a test
 * visits is saved as a screenshot in `test/browser/screenshots/` (ignored by git) for a reviewer.
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
  close(): Promise<void>;
}

/** The whole application, listening on 127.0.0.1 on a free port. */
export async function startBrowserServer(config: Partial<Config> = {}): Promise<BrowserServer> {
  const clock = new ManualClock(Date.now());
  const services = await createServices(testConfig(config), { clock, wallClock: new OffsetClock(0) });
  const app = await buildApp(services);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    clock,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

export interface BrowserSession {
  browser: Browser;
  /** A new page (its own cookies) of the given width; every page it loads is screenshotted. */
  newPage(name: string, options?: { width?: number; height?: number; locale?: string }): Promise<Page>;
  close(): Promise<void>;
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
  return {
    browser,
    async newPage(name, options = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1200, height: options.height ?? 900 },
        locale: options.locale ?? 'en-GB',
      });
      const page = await context.newPage();
      page.on('load', () => {
        const file = join(
          SCREENSHOTS,
          `${suite}-${String(++shot).padStart(2, '0')}-${name}-${new URL(page.url()).pathname.replace(/[^a-z0-9]+/gi, '_').slice(0, 40)}.png`,
        );
        page.screenshot({ path: file, fullPage: true }).catch(() => {});
      });
      return page;
    },
    async close() {
      await browser.close();
    },
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
