import type { FastifyReply } from 'fastify';

/**
 * Pages are never framed (clickjacking on the consent page), never cached (they show private data),
 * send no Referer with a reset link's token to other sites, and load nothing from elsewhere. The
 * CORS headers every API answer carries are not for pages.
 */
export function pageHeaders(reply: FastifyReply): void {
  for (const name of [
    'Access-Control-Allow-Origin',
    'Access-Control-Allow-Headers',
    'Access-Control-Expose-Headers',
    'Access-Control-Max-Age',
    'Access-Control-Allow-Methods',
  ]) {
    reply.removeHeader(name);
  }
  reply.headers({
    'Content-Security-Policy': contentSecurityPolicy(undefined, reply.server.imageHosts),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
}

/**
 * Only this site's styles and scripts, never framed; forms post here only, except that a page whose
 * form ends in a redirect elsewhere (the consent page, to the app's callback) names that origin:
 * browsers hold a form's redirect to `form-action` too.
 */
export function contentSecurityPolicy(formActionOrigin?: string, imageHosts: readonly string[] = []): string {
  const formAction = formActionOrigin ? `'self' ${formActionOrigin}` : "'self'";
  // The card pictures of the outside hosts the operator admitted (IMAGE_HOSTS), https only.
  const images = imageHosts.map((h) => ` https://${h}`).join('');
  return `default-src 'self'; img-src 'self' data:${images}; frame-ancestors 'none'; base-uri 'none'; form-action ${formAction}`;
}
