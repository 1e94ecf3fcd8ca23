/**
 * The methods each path takes, collected from the routes as they are registered (`onRoute`), for the
 * answers given where the router found no route for a request's method: 405 with `Allow` when the
 * path takes other methods, before the body is read (docs/api.md, "Wire conventions"). Several patterns
 * may serve one path (a static one for GET, a parametric one for POST): their methods are joined.
 */
export class MethodTable {
  private readonly routes: Array<{ re: RegExp; methods: Set<string> }> = [];
  private readonly byPattern = new Map<string, Set<string>>();

  add(method: string | string[], url: string): void {
    let methods = this.byPattern.get(url);
    if (!methods) {
      methods = new Set();
      this.byPattern.set(url, methods);
      const re = new RegExp(
        `^${url
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/:\w+/g, '[^/]+')
          .replace(/\*/g, '.*')}/?$`,
      );
      this.routes.push({ re, methods });
    }
    for (const m of Array.isArray(method) ? method : [method]) methods.add(m.toUpperCase());
  }

  /** `GET, POST` for a path some route serves (the query string ignored), else undefined. */
  allowedFor(url: string): string | undefined {
    const path = url.split('?')[0]!;
    const found = new Set<string>();
    for (const route of this.routes) if (route.re.test(path)) for (const m of route.methods) found.add(m);
    return found.size === 0 ? undefined : [...found].sort(byUsualOrder).join(', ');
  }
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const rank = (m: string) => (ORDER.includes(m) ? ORDER.indexOf(m) : ORDER.length);
const byUsualOrder = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b);
