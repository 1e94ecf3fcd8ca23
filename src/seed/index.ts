import type { Services } from '../services.js';
import { seedDemoMessages } from './demo-messages.js';
import { seedDemoUsers } from './demo-users.js';

export interface SeedOptions {
  out?: (line: string) => void;
  /** Grows the demo catalog and stock for benchmarks (1 = the default demo). */
  scale?: number;
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
}
