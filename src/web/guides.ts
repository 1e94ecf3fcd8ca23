import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import Token from 'markdown-it/lib/token.mjs';

/**
 * The guides (`docs/*.md`) as pages: the same Markdown a code host shows, rendered by markdown-it
 * in the site's layout at `/docs/<guide>`. The files are the one source; nothing is copied into
 * the pages. What a code host does that markdown-it does not, done here:
 *  - headings get GitHub's ids (github-slugger, the code host's own algorithm), so a link
 *    `running-a-marketplace.md#settings` means the same heading on both;
 *  - links between guides (`api.md#limits`) become their pages (`/docs/api#limits`), images under
 *    `docs/images/` are served at `/docs/images/…`, and links to other files of the repository
 *    (sources, examples), which the site does not serve, become plain text.
 * Raw HTML in the Markdown is escaped (`html: false`): a guide is text, never markup.
 */
export const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));
export const DOCS_IMAGES_DIR = fileURLToPath(new URL('../../docs/images/', import.meta.url));

/** The guides in the order the index lists them: one reader and one job each. */
export const GUIDES = [
  'testing-your-client',
  'using-the-website',
  'running-a-marketplace',
  'api',
  'developing',
  'performance',
] as const;
/** Generated Markdown shown the same way, listed under the references. */
export const REFERENCE_PAGES = ['parity'] as const;
export const DOC_PAGES: readonly string[] = [...GUIDES, ...REFERENCE_PAGES];

export interface RenderedGuide {
  slug: string;
  /** The text of the first `#` heading. */
  title: string;
  /** The first paragraph after it, as HTML (the index shows it under the title). */
  lead: string;
  /** The whole document as HTML. */
  html: string;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** The text a heading shows (what GitHub slugs), from its inline tokens. */
function inlineText(token: Token | undefined): string {
  if (!token?.children) return token?.content ?? '';
  return token.children
    .map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : inlineText(c)))
    .join('');
}

/** GitHub's ids for the headings of a Markdown text, in order (a repeated heading gets `-1`, …). */
export function headingIds(markdown: string): string[] {
  const slugger = new GithubSlugger();
  const tokens = md.parse(markdown, {});
  const ids: string[] = [];
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open') ids.push(slugger.slug(inlineText(tokens[i + 1])));
  });
  return ids;
}

/** Every link and image target of a Markdown text, as written. */
export function markdownTargets(markdown: string): string[] {
  const out: string[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'link_open') out.push(t.attrGet('href') ?? '');
      if (t.type === 'image') out.push(t.attrGet('src') ?? '');
      if (t.children) walk(t.children);
    }
  };
  walk(md.parse(markdown, {}));
  return out;
}

const ABSOLUTE = /^(?:[a-z][a-z0-9+.-]*:|\/|#)/i;

/**
 * Where a relative link of a guide points on the site: another guide's page, an image, the
 * documentation's index (for the README, whose content the index and the guides carry), or
 * nothing (a file of the repository the site does not serve).
 */
export function siteHref(href: string): string | undefined {
  if (ABSOLUTE.test(href)) return href;
  const hashAt = href.indexOf('#');
  const path = hashAt >= 0 ? href.slice(0, hashAt) : href;
  const hash = hashAt >= 0 ? href.slice(hashAt) : '';
  const page = /^(?:\.\/)?([a-z0-9-]+)\.md$/.exec(path)?.[1];
  if (page && DOC_PAGES.includes(page)) return `/docs/${page}${hash}`;
  if (/^(?:\.\/)?images\/[\w.-]+$/.test(path)) return `/docs/${path.replace(/^\.\//, '')}`;
  if (path === '../README.md') return '/docs';
  return undefined;
}

function rewrite(tokens: Token[], slugger: GithubSlugger): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'heading_open') {
      const inline = tokens[i + 1];
      const id = slugger.slug(inlineText(inline));
      t.attrSet('id', id);
      // The heading's own link, as a code host shows one: a place to copy the address from.
      if (inline?.children) {
        const open = new Token('link_open', 'a', 1);
        open.attrs = [
          ['class', 'anchor'],
          ['href', `#${id}`],
          ['aria-label', `Link to this section`],
        ];
        const text = new Token('text', '', 0);
        text.content = '#';
        inline.children.push(open, text, new Token('link_close', 'a', -1));
      }
    }
    if (t.children) rewriteInline(t.children);
  }
}

function rewriteInline(children: Token[]): void {
  const closers: Token[] = [];
  for (const c of children) {
    if (c.type === 'link_open') {
      const href = c.attrGet('href') ?? '';
      const target = siteHref(href);
      if (target !== undefined) {
        c.attrSet('href', target);
        closers.push(c);
      } else {
        // A file of the repository: its name stays, as text.
        c.type = 'html_inline';
        c.content = `<span class="repo-file" title="${md.utils.escapeHtml(`In the repository: ${href}`)}">`;
        closers.push(c);
      }
    } else if (c.type === 'link_close') {
      const open = closers.pop();
      if (open?.type === 'html_inline') {
        c.type = 'html_inline';
        c.content = '</span>';
      }
    } else if (c.type === 'image') {
      const src = c.attrGet('src') ?? '';
      c.attrSet('src', siteHref(src) ?? src);
    }
  }
}

/**
 * Comments a file keeps for its editors (`<!-- Generated by … -->`): a code host shows nothing of
 * them, so neither does the page (with raw HTML off they would show as text).
 */
const COMMENT_LINES = /^<!--[\s\S]*?-->[ \t]*$/gm;

/** Renders one guide's Markdown to the page's parts. */
export function renderGuide(slug: string, markdown: string): RenderedGuide {
  const env = {};
  const tokens = md.parse(markdown.replace(COMMENT_LINES, ''), env);
  const slugger = new GithubSlugger();
  let title = slug;
  let lead = '';
  const h1 = tokens.findIndex((t) => t.type === 'heading_open' && t.tag === 'h1');
  if (h1 >= 0) title = inlineText(tokens[h1 + 1]);
  rewrite(tokens, slugger);
  const para = tokens.findIndex((t, i) => i > h1 && t.type === 'paragraph_open');
  if (para >= 0) lead = md.renderer.renderInline(tokens[para + 1]?.children ?? [], md.options, env);
  return { slug, title, lead, html: md.renderer.render(tokens, md.options, env) };
}

const cache = new Map<string, Promise<RenderedGuide>>();

/** A page of the documentation by its name, read and rendered once per process; undefined if none. */
export function docPage(slug: string): Promise<RenderedGuide> | undefined {
  if (!DOC_PAGES.includes(slug)) return undefined;
  let page = cache.get(slug);
  if (!page) {
    page = readFile(`${DOCS_DIR}${slug}.md`, 'utf8').then((text) => renderGuide(slug, text));
    // A failed read is not kept: the next request tries again.
    page.catch(() => cache.delete(slug));
    cache.set(slug, page);
  }
  return page;
}
