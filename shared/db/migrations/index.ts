import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_initial } from './Migration20261122000000_initial';
import { Migration20261122100000_webhooks } from './Migration20261122100000_webhooks';
import { Migration20261123080000_insights } from './Migration20261123080000_insights';

/** Every migration, in order. Listed explicitly so the same list runs under tsx, jest and compiled JS. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122100000_webhooks', class: Migration20261122100000_webhooks },
  { name: 'Migration20261123080000_insights', class: Migration20261123080000_insights },
];
