import type { FastifyInstance } from 'fastify';
import { marketStatusView } from '../domain/market/index.js';
import { notFound } from '../errors.js';
import type { Services } from '../services.js';
import { marketActions } from '../store/market.js';
import { render } from './render.js';

/** How many of the latest actions the page lists. */
const LAST_ACTIONS = 50;

/**
 * `/market` (sandbox): the living market's state (docs/testing-your-client.md, "A living market"):
 * its run, its traders by kind, each product's hidden fair value beside its price guide, and the
 * latest actions with their reasons. Public like the catalog: it holds nothing of any real user's.
 * Production has no market, and no page for it.
 */
export function marketPages(app: FastifyInstance, services: Services): void {
  app.get('/market', async (request, reply) => {
    if (services.config.mode === 'production') throw notFound('There is no such page.');
    const view = await marketStatusView(services);
    const actions = (await marketActions(services.database.db, { last: LAST_ACTIONS })).reverse();
    return render(request, reply, 'market', { title: 'market.title', view, actions });
  });
}
