import type { TestServer } from './helpers.js';

/**
 * A browser without JavaScript, for HTTP-level tests of the website through `inject`: it keeps the
 * cookies the server sets, follows nothing by itself (tests look at each 303), and posts forms with
 * the CSRF token of the last page it read, as a browser submitting that page's form would.
 */
export interface WebResult {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  location: string | undefined;
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  /** The last `_csrf` a page carried. */
  csrf = '';

  constructor(
    readonly server: TestServer,
    readonly options: { acceptLanguage?: string; remoteAddress?: string } = {},
  ) {}

  async request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<WebResult> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.server.app.inject({
      method,
      url,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(this.options.acceptLanguage ? { 'accept-language': this.options.acceptLanguage } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      payload: form ? new URLSearchParams(form).toString() : undefined,
      remoteAddress: this.options.remoteAddress,
    });
    for (const c of res.cookies as Array<{ name: string; value: string; expires?: Date; maxAge?: number }>) {
      const gone = c.value === '' || (c.expires && c.expires.getTime() <= Date.now()) || c.maxAge === 0;
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const text = res.body;
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    const location = res.headers.location;
    return {
      status: res.statusCode,
      headers: res.headers,
      text,
      location: typeof location === 'string' ? location : undefined,
    };
  }

  get(url: string) {
    return this.request('GET', url);
  }

  /** Posts a form with the CSRF token of the last page read (pass `_csrf: ''` to leave it out). */
  post(url: string, form: Record<string, string> = {}) {
    const withToken = '_csrf' in form ? form : { _csrf: this.csrf, ...form };
    if (withToken._csrf === '') delete withToken._csrf;
    return this.request('POST', url, withToken);
  }

  /** Registers (reading the form first, as a person would) and ends signed in. */
  async register(username: string, password = 'correct horse battery', country = 'FR') {
    await this.get('/register');
    return this.post('/register', { username, email: `${username}@example.org`, password, country });
  }

  async signIn(username: string, password: string, next?: string) {
    await this.get(next ? `/login?next=${encodeURIComponent(next)}` : '/login');
    return this.post('/login', { username, password, next: next ?? '/profile' });
  }
}

/** The text of an HTML fragment without tags (for asserting what a page says). */
export const textOf = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

/** A credential the profile page shows (`data-credential="appToken"` …) of the app `idApp`. */
export function credentialOnPage(html: string, idApp: number, name: string): string | undefined {
  const start = html.indexOf(`id="app-${idApp}"`);
  if (start === -1) return undefined;
  const end = html.indexOf('</article>', start);
  return new RegExp(`data-credential="${name}">([^<]*)<`).exec(html.slice(start, end))?.[1];
}
