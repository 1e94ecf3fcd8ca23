import type { Services } from '../services.js';
import { seedDemoMessages } from './demo-messages.js';
import { withBulkLoad } from '../store/bulk.js';
import { seedDemoUsers } from './demo-users.js';
import { seedDemoMarketplace } from './marketplace.js';
import { type Progress, silentProgress } from './progress.js';

export interface SeedOptions {
  out?: (line: string) => void;
  /** Grows the demo catalog and stock for benchmarks (1 = the default demo). */
  scale?: number;
  /** Where long phases report their progress (the CLI draws a bar). */
  progress?: Progress;
}

/**
 * Loads the demo data. Deterministic, and safe to run on a database that already has it: every
 * part checks what exists first.
 */
export async function seedDemo(services: Services, options: SeedOptions = {}): Promise<void> {
  const out = options.out ?? (() => {});
  await seedDemoUsers(services);
  out('Demo users and apps are ready.');
  await seedDemoMessages(services);
  await withBulkLoad(services.database.db, () =>
    seedDemoMarketplace(services, options.scale ?? 1, out, options.progress ?? silentProgress),
  );
}
