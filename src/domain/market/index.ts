import { marketTraders, marketValueViews, type MarketValueView } from '../../store/market.js';
import type { DomainContext } from '../context.js';
import { type MarketState, readMarketState } from './engine.js';

export * from './engine.js';
export * from './scenario.js';

export interface MarketStatusView {
  state: MarketState | null;
  traders: Array<{ kind: string; count: number }>;
  values: MarketValueView[];
}

/** What `market status` and the market page show: the run, the traders by kind, value beside guide. */
export async function marketStatusView(ctx: DomainContext): Promise<MarketStatusView> {
  const db = ctx.database.db;
  const traders = await marketTraders(db);
  const byKind = new Map<string, number>();
  for (const t of traders) byKind.set(t.kind, (byKind.get(t.kind) ?? 0) + 1);
  return {
    state: await readMarketState(ctx),
    traders: [...byKind].map(([kind, count]) => ({ kind, count })),
    values: await marketValueViews(db),
  };
}
export * from './live.js';
