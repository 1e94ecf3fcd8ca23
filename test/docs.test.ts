import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Command } from 'commander';
import MarkdownIt from 'markdown-it';
import { buildApp } from '../src/app.js';
import { buildCli } from '../src/cli/program.js';
import { ManualClock, OffsetClock } from '../src/clock.js';
import { SETTINGS, testConfig } from '../src/config.js';
import { createServices, type Services } from '../src/services.js';
import { DOC_PAGES, GUIDES, headingIds, markdownTargets, renderGuide, siteHref } from '../src/web/guides.js';
import type { FastifyInstance } from 'fastify';

/**
 * The documentation is checked from outside by newcomers, client maintainers and operators: the
 * README and the guides (`docs/*.md`) keep up with the code (every setting, command and page has
 * its one defining entry), their links lead somewhere, and the website serves every guide.
 */
const ROOT = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const docFiles = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => join(ROOT, 'docs', f));
const documents = [join(ROOT, 'README.md'), ...docFiles].map((path) => ({
  path,
  name: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

const md = new MarkdownIt();

/** Every table of a Markdown text: its header cells and its rows' cells, as text. */
function tables(markdown: string): Array<{ header: string[]; rows: string[][] }> {
  const out: Array<{ header: string[]; rows: string[][] }> = [];
  let table: { header: string[]; rows: string[][] } | undefined;
  let row: string[] | undefined;
  let inHead = false;
  for (const t of md.parse(markdown, {})) {
    if (t.type === 'table_open') out.push((table = { header: [], rows: [] }));
    else if (t.type === 'thead_open') inHead = true;
    else if (t.type === 'thead_close') inHead = false;
    else if (t.type === 'tr_open') row = [];
    else if (t.type === 'tr_close' && table && row) {
      if (inHead) table.header = row;
      else table.rows.push(row);
    } else if (t.type === 'inline' && row) row.push(t.content);
  }
  return out;
}

/** The rows of every table (in every document) whose first header cell is `heading`. */
function rowsUnder(heading: string): Array<{ doc: string; cells: string[] }> {
  return documents.flatMap((d) =>
    tables(d.text)
      .filter((t) => t.header[0]?.trim() === heading)
      .flatMap((t) => t.rows.map((cells) => ({ doc: d.name, cells }))),
  );
}

function commandPaths(cmd: Command, prefix = ''): string[] {
  return cmd.commands.flatMap((c) => {
    const path = `${prefix}${c.name()}`;
    return c.commands.length > 0 ? commandPaths(c, `${path} `) : [path];
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the README and the guides', () => {
  it('define every setting once, in the settings table, with its environment variable and flag', () => {
    const rows = rowsUnder('Environment variable');
    for (const s of SETTINGS) {
      const defining = rows.filter((r) => r.cells[0]?.trim() === `\`${s.env}\``);
      assert.equal(defining.length, 1, `${s.env}: ${defining.length} defining rows (one expected)`);
      assert.ok(defining[0]!.cells[1]?.includes(`\`${s.flag}\``), `${s.env}'s row names ${s.flag}`);
    }
    const known = new Set(SETTINGS.map((s) => `\`${s.env}\``));
    assert.deepEqual(
      rows.map((r) => r.cells[0]!.trim()).filter((c) => !known.has(c)),
      [],
      'rows of the settings table that are no setting',
    );
  });

  it('define every CLI command once, in a command table', () => {
    const rows = rowsUnder('Command');
    for (const path of commandPaths(buildCli())) {
      // A row's first cell may name several forms: `clock show` / `clock advance 8d` / `clock reset`.
      const named = new RegExp('`' + escape(path) + '(?=[\\s`])');
      const defining = rows.filter((r) => named.test(r.cells[0] ?? ''));
      assert.equal(
        defining.length,
        1,
        `"${path}": ${defining.length} defining rows (${defining.map((r) => r.doc).join(', ')})`,
      );
    }
  });

  it('give the two commands of a fresh start and the test command in the README', () => {
    assert.ok(readme.includes('npm install && npm start'));
    assert.ok(readme.includes('npm test'));
    assert.ok(readme.split('\n').length <= 260, `the README has ${readme.split('\n').length} lines`);
  });

  it('resolve every relative link and anchor (files and headings)', () => {
    const broken: string[] = [];
    for (const d of documents) {
      for (const target of markdownTargets(d.text)) {
        if (/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(target)) continue;
        if (target.startsWith('/')) {
          broken.push(`${d.name}: ${target} (an absolute path: write it relative to the file)`);
          continue;
        }
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const file = path === '' ? d.path : resolve(dirname(d.path), decodeURIComponent(path));
        if (!existsSync(file)) {
          broken.push(`${d.name}: ${target} (no such file)`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!file.endsWith('.md') || statSync(file).isDirectory()) {
          broken.push(`${d.name}: ${target} (an anchor into a file that is not Markdown)`);
          continue;
        }
        if (!headingIds(readFileSync(file, 'utf8')).includes(decodeURIComponent(anchor)))
          broken.push(`${d.name}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('keep every page of the docs folder listed as a guide or a reference, and link each guide from the README', () => {
    const pages = docFiles.map((f) => relative(join(ROOT, 'docs'), f).replace(/\.md$/, '')).sort();
    assert.deepEqual(pages, [...DOC_PAGES].sort());
    for (const g of GUIDES) assert.ok(readme.includes(`(docs/${g}.md`), `the README links docs/${g}.md`);
  });

  it('mention no section of the old single README by its italic title', () => {
    // "see _Limits_" pointed into one long file; in the guides a reference is a link.
    const stale = /\(see _[A-Z][^_]+_\)|README, _[A-Z]/;
    for (const d of documents) assert.doesNotMatch(d.text, stale, d.name);
  });
});

describe('rendering a guide', () => {
  it('escapes raw HTML, gives headings GitHub’s ids and rewrites links for the site', () => {
    const page = renderGuide(
      'x',
      [
        '# A guide',
        '',
        'The lead, with [the API](api.md#limits).',
        '',
        '## Settings `HOST` & more',
        '',
        '<script>alert(1)</script> <b>bold</b>',
        '',
        '[run](running-a-marketplace.md) [src](../src/config.ts) [home](../README.md#requirements)',
        '[here](#a-guide) [out](https://example.org/x)',
        '',
        '![shot](images/x.png)',
        '',
        '## Settings `HOST` & more',
        '',
        '<!-- Generated by a script: do not edit. -->',
      ].join('\n'),
    );
    assert.equal(page.title, 'A guide');
    assert.equal(page.lead, 'The lead, with <a href="/docs/api#limits">the API</a>.');
    assert.match(page.html, /<h1 id="a-guide">A guide<a class="anchor" href="#a-guide"/);
    assert.match(page.html, /<h2 id="settings-host--more">/);
    assert.match(page.html, /<h2 id="settings-host--more-1">/);
    assert.match(page.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &lt;b&gt;bold&lt;\/b&gt;/);
    assert.doesNotMatch(page.html, /<script|<b>/);
    // A comment kept for the file's editors shows on neither a code host nor the page.
    assert.doesNotMatch(page.html, /Generated by|&lt;!--/);
    assert.match(page.html, /<a href="\/docs\/running-a-marketplace">run<\/a>/);
    assert.match(
      page.html,
      /<span class="repo-file" title="In the repository: ..\/src\/config.ts">src<\/span>/,
    );
    assert.match(page.html, /<a href="\/docs">home<\/a>/);
    assert.match(page.html, /<a href="#a-guide">here<\/a> <a href="https:\/\/example.org\/x">out<\/a>/);
    assert.match(page.html, /<img src="\/docs\/images\/x.png" alt="shot">/);
    assert.equal(siteHref('javascript:alert(1)'), 'javascript:alert(1)');
    // markdown-it refuses such a link outright: it stays text.
    assert.doesNotMatch(renderGuide('y', '[x](javascript:alert(1))').html, /href="javascript/);
  });
});

describe('the documentation on the website', () => {
  let services: Services;
  let app: FastifyInstance;
  const routes: string[] = [];

  before(async () => {
    services = await createServices(testConfig(), {
      clock: new ManualClock(Date.now()),
      wallClock: new OffsetClock(0),
    });
    app = await buildApp(services, {
      onRoute: ({ method, url }) => {
        for (const m of [method].flat()) routes.push(`${m} ${url}`);
      },
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await services.close();
  });

  const get = (url: string, lang?: string) =>
    app.inject({ url, headers: lang ? { 'accept-language': lang } : {} });

  it('lists the guides at /docs, with the API reference, in the reader’s language', async () => {
    for (const [lang, heading] of [
      ['en', 'Documentation'],
      ['fr', 'Documentation'],
      ['de', 'Dokumentation'],
      ['es', 'Documentación'],
      ['it', 'Documentazione'],
    ] as const) {
      const res = await get('/docs', lang);
      assert.equal(res.statusCode, 200, lang);
      assert.match(res.body, new RegExp(`<html lang="${lang}">`));
      assert.match(res.body, new RegExp(`<h1>${heading}</h1>`));
      assert.match(res.body, /<header class="top">/, 'the site layout');
      for (const g of GUIDES) assert.match(res.body, new RegExp(`<a href="/docs/${g}">`), `${lang} ${g}`);
      assert.match(res.body, /<a href="\/docs\/api\/reference">/);
      assert.match(res.body, /<a href="\/docs\/parity">/);
      assert.match(res.body, /<script src="\/assets\/docs.js"><\/script>/);
    }
    const en = (await get('/docs')).body;
    assert.match(en, /<a href="\/docs\/testing-your-client">Testing your client against cardbazaar<\/a>/);
    assert.doesNotMatch(en, /written in English/, 'an English reader is not told the guides are English');
    assert.match((await get('/docs', 'de')).body, /Die Leitfäden sind auf Englisch geschrieben\./);
  });

  it('renders each guide in the site’s layout, with its heading, its links made site links', async () => {
    for (const page of DOC_PAGES) {
      const source = readFileSync(join(ROOT, 'docs', `${page}.md`), 'utf8');
      const ids = headingIds(source);
      for (const lang of ['en', 'fr', 'de', 'es', 'it']) {
        const res = await get(`/docs/${page}`, lang);
        assert.equal(res.statusCode, 200, `${page} ${lang}`);
        assert.match(res.body, /<header class="top">/, `${page}: the site layout`);
        assert.match(res.body, new RegExp(`<html lang="${lang}">`));
        assert.match(res.body, /<article class="guide" lang="en">\n<h1 id="/, `${page}: its heading`);
        assert.match(res.body, /<a href="\/docs">/, `${page}: a way back to the list`);
        assert.match(res.body, /<footer>/);
      }
      const res = await get(`/docs/${page}`);
      for (const id of ids) assert.ok(res.body.includes(` id="${id}"`), `${page}: the heading #${id}`);
      // No link of a guide goes to a Markdown file: every one became its page (or text).
      assert.doesNotMatch(res.body, /href="[^"]*\.md(?:#[^"]*)?"/, `${page}: a link left to a .md file`);
    }
    const missing = await get('/docs/no-such-guide', 'fr');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /Il n’y a pas de guide « no-such-guide »/);
  });

  it('serves every picture a guide shows, and nothing else from the docs folder', async () => {
    let pictures = 0;
    for (const page of DOC_PAGES) {
      const source = readFileSync(join(ROOT, 'docs', `${page}.md`), 'utf8');
      for (const target of markdownTargets(source).filter((t) => t.startsWith('images/'))) {
        const res = await get(siteHref(target)!);
        assert.equal(res.statusCode, 200, target);
        assert.equal(res.headers['content-type'], 'image/png');
        pictures++;
      }
    }
    assert.ok(pictures >= 3, 'the website guide shows its pages');
    assert.equal((await get('/docs/images/../api.md')).statusCode, 404);
    assert.equal((await get('/docs/openapi-examples.json')).statusCode, 404);
  });

  it('keeps the API reference (Redoc) at /docs/api/reference, and lists every page of the site in the pages table', async () => {
    const reference = await get('/docs/api/reference');
    assert.equal(reference.statusCode, 200);
    assert.match(reference.body, /<redoc spec-url="\/ws\/v2.0\/openapi.json"/);
    assert.equal((await get('/docs/assets/redoc.standalone.js')).statusCode, 200);

    const rows = rowsUnder('Page');
    const isPage = (url: string) =>
      !/^\/(?:ws|_cardbazaar|productCatalog|assets|healthz|docs\/(?:assets|images))\b|^\*$/.test(url);
    const pages = [
      ...new Set(
        routes
          .filter((r) => r.startsWith('GET '))
          .map((r) => r.slice(4))
          .filter(isPage),
      ),
    ];
    assert.ok(pages.length > 30);
    for (const page of pages) {
      const named = new RegExp('`' + escape(page) + '(?=[`?\\s])');
      const defining = rows.filter((r) => named.test(r.cells[0] ?? ''));
      assert.equal(defining.length, 1, `the page ${page}: ${defining.length} rows of the pages table`);
    }
  });
});
