import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { publicOrigin, requestHost } from './origin.js';
import { API_PREFIX } from './routing.js';

/**
 * Retired versions and moved addresses (spec §4, §9). Version 1.1 was disabled in September 2021
 * and version 1.0 (credentials in the path) retired; both answer 410 Gone naming /ws/v2.0. A request
 * to an old base address is served with Deprecation/Sunset headers until the cutoff, then 410.
 */
export function installVersions(app: FastifyInstance, config: Config): void {
  const allMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];
  const replacement = (req: Parameters<typeof publicOrigin>[0]) => {
    const { origin, basePath } = publicOrigin(req, config);
    return `${origin}${basePath}${API_PREFIX}`;
  };

  app.route({
    method: allMethods,
    url: '/ws/v1.1/*',
    handler: async (request) => {
      throw new ApiError(
        410,
        `API version 1.1 was disabled in September 2021. Use version 2.0: ${replacement(request)}`,
      );
    },
  });

  // Version 1.0 put the user name and API key in the path: /ws/:user/:apikey/…
  app.route({
    method: allMethods,
    url: '/ws/:user/:apikey/*',
    handler: async (request) => {
      const { user } = request.params as { user: string };
      if (user === 'v2.0') throw new ApiError(404, 'This resource does not exist.');
      throw new ApiError(
        410,
        `API version 1.0 (credentials in the path) is retired. Use version 2.0 with OAuth: ${replacement(request)}`,
      );
    },
  });
}

/**
 * A request to an old base address: served with Deprecation/Sunset headers until the cutoff, then
 * refused with a 410 (thrown). Undefined when no old address is configured; run by the application's
 * first hook (`src/app.ts`), after the CORS headers and before anything else looks at the request.
 */
export function oldBaseAddressCheck(
  config: Config,
  wallClock: Clock,
): ((request: FastifyRequest, reply: FastifyReply) => void) | undefined {
  if (config.oldBaseUrls.length === 0) return undefined;
  const sunset = new Date(config.oldBaseUrlCutoff).toUTCString();
  // RFC 9745: a structured-field date, `@` and epoch seconds (the obsolete draft sent `true`).
  const deprecation = `@${Math.floor(config.oldBaseUrlCutoff / 1000)}`;
  return (request, reply) => {
    const host = requestHost(request, config);
    const bare = host.replace(/:\d+$/, '');
    if (!config.oldBaseUrls.some((h) => h === host || h === bare)) return;
    const current = config.publicBaseUrl
      ? `${config.publicBaseUrl}${API_PREFIX}`
      : `${API_PREFIX} on the new host`;
    if (wallClock.now() >= config.oldBaseUrlCutoff) {
      throw new ApiError(410, `This base address is no longer served since ${sunset}. Use ${current}.`);
    }
    reply.header('Deprecation', deprecation);
    reply.header('Sunset', sunset);
    if (config.publicBaseUrl)
      reply.header('Link', `<${config.publicBaseUrl}${API_PREFIX}>; rel="successor-version"`);
  };
}
