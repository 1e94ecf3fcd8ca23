import { refreshPriceGuide } from '../domain/priceguide.js';
import type { Services } from '../services.js';
import { findUserByUsername } from '../store/users.js';
import { seedCatalog } from './catalog.js';
import { planCatalog } from './catalog-plan.js';
import type { Progress } from './progress.js';
import { planSellers, seedSellers } from './sellers.js';
import { chunkCount, seedDemoUserStock, seedStock } from './stock.js';

/** How many offers each demo account lists itself. */
const DEMO_USER_STOCK: Record<string, number> = {
  'demo-seller': 300,
  'demo-powerseller': 600,
  'demo-buyer': 25,
};

/**
 * The demo marketplace: the catalog (six games with their real ids, 36 expansions and about 5,000
 * products per unit of scale), demo sellers, 50,000 offers per unit of scale, the demo accounts'
 * own offers, and the price guide computed over all of it.
 */
export async function seedDemoMarketplace(
  services: Services,
  scale: number,
  out: (line: string) => void,
  progress: Progress,
): Promise<void> {
  const plan = planCatalog(scale);
  progress.start('Catalog', plan.expansions.length);
  const products = await seedCatalog(services, plan, progress);
  progress.finish();

  const sellerPlans = planSellers(scale);
  progress.start('Sellers', sellerPlans.length);
  const ids = await seedSellers(services, sellerPlans, progress);
  progress.finish();

  progress.start('Offers', chunkCount(scale));
  const sellers = sellerPlans.map((s) => ({ idUser: ids.get(s.username)!, weight: s.weight }));
  const articles = await seedStock(services, plan.products, sellers, scale, progress);
  progress.finish();

  const demoUsers: { idUser: number; articles: number }[] = [];
  for (const [username, count] of Object.entries(DEMO_USER_STOCK)) {
    const user = await findUserByUsername(services.database.db, username);
    if (user) demoUsers.push({ idUser: user.idUser, articles: count });
  }
  const own = await seedDemoUserStock(services, plan.products, demoUsers);

  progress.start('Price guide', 1);
  await refreshPriceGuide(services);
  progress.advance(1);
  progress.finish();
  out(
    `Demo marketplace: ${plan.expansions.length} expansions (${products} new products), ` +
      `${sellerPlans.length} sellers, ${articles + own} new offers.`,
  );
}
