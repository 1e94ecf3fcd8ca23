import type { FastifyInstance } from 'fastify';
import { publicOrigin } from '../http/origin.js';
import { API_PREFIX } from '../http/routing.js';
import { homeShelves, listGames } from '../domain/products.js';
import type { Services } from '../services.js';
import { displayLanguageOf } from './i18n/index.js';
import { render } from './render.js';

/**
 * The front page (issue 35): a search box, the games, what is moving (newest listings, recently
 * sold, the price guide's biggest trend changes) with pictures and prices; the API a second section.
 */
export function homePages(app: FastifyInstance, services: Services): void {
  app.get('/', async (request, reply) => {
    const { origin, basePath } = publicOrigin(request, services.config);
    const [games, shelves] = await Promise.all([listGames(services), homeShelves(services)]);
    return render(request, reply, 'home', {
      games,
      shelves,
      idLanguage: displayLanguageOf(request.lang),
      title: 'home.title',
      apiBase: `${origin}${basePath}${API_PREFIX}`,
      mode: services.config.mode,
    });
  });
}
