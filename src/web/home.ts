import type { FastifyInstance } from 'fastify';
import { publicOrigin } from '../http/origin.js';
import { API_PREFIX } from '../http/routing.js';
import type { Services } from '../services.js';
import { render } from './render.js';

/** The front page: what this is and where to go. */
export function homePages(app: FastifyInstance, services: Services): void {
  app.get('/', async (request, reply) => {
    const { origin, basePath } = publicOrigin(request, services.config);
    return render(request, reply, 'home', {
      title: 'home.title',
      apiBase: `${origin}${basePath}${API_PREFIX}`,
      mode: services.config.mode,
    });
  });
}
