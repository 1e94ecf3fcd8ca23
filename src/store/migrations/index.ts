import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_catalog_core.js';
import * as m0004 from './0004_stock.js';
import * as m0006 from './0006_messages_wants.js';
import * as m0005 from './0005_trading.js';
import * as m0003 from './0003_catalog.js';
import * as m0007_1 from './0007_1_website.js';
import * as m0008_1 from './0008_1_oauth_nonces.js';
import * as m0008_2 from './0008_2_lost_orders.js';
import * as m0011 from './0011_catalog_versions.js';
import * as m0016 from './0016_offer_index.js';
import * as m0008_3 from './0008_3_seller_activation.js';
import * as m0015 from './0015_faults.js';
import * as m0032_1 from './0032_1_fault_scopes.js';
import * as m0032_2 from './0032_2_webhook_strict_order.js';
import * as m0013 from './0013_request_log.js';
import * as m0012 from './0012_events_webhooks.js';
import * as m0018 from './0018_search_reads.js';
import * as m0022 from './0022_product_info_version.js';
import * as m0023 from './0023_message_pair_versions.js';
import * as m0027 from './0027_request_log_signed_over.js';
import * as m0030 from './0030_limit_counters.js';
import * as m0033 from './0033_market.js';
import * as m0036_1 from './0036_1_offer_condition.js';

/**
 * Every migration, in order. Listed by hand rather than read from a folder so the same list works
 * from TypeScript sources (tests) and compiled JavaScript (`npm start`). A feature adds its own
 * file and one line here; a migration that has been released is never edited.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_catalog_core': m0002,
  '0004_stock': m0004,
  '0006_messages_wants': m0006,
  '0005_trading': m0005,
  '0003_catalog': m0003,
  '0007_1_website': m0007_1,
  '0008_1_oauth_nonces': m0008_1,
  '0008_2_lost_orders': m0008_2,
  '0008_3_seller_activation': m0008_3,
  '0011_catalog_versions': m0011,
  '0015_faults': m0015,
  '0013_request_log': m0013,
  '0016_offer_index': m0016,
  '0012_events_webhooks': m0012,
  '0018_search_reads': m0018,
  '0022_product_info_version': m0022,
  '0023_message_pair_versions': m0023,
  '0027_request_log_signed_over': m0027,
  '0030_limit_counters': m0030,
  '0032_1_fault_scopes': m0032_1,
  '0032_2_webhook_strict_order': m0032_2,
  '0033_market': m0033,
  '0036_1_offer_condition': m0036_1,
};
