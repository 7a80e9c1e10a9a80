import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_initial } from './Migration20261122000000_initial';
import { Migration20261122100000_webhooks } from './Migration20261122100000_webhooks';
import { Migration20261123010000_credentials_version } from './Migration20261123010000_credentials_version';
import { Migration20261123030000_event_pipeline } from './Migration20261123030000_event_pipeline';
import { Migration20261123040000_transparency_codes } from './Migration20261123040000_transparency_codes';
import { Migration20261123040100_auto_login_tokens } from './Migration20261123040100_auto_login_tokens';
import { Migration20261123040200_license_plates } from './Migration20261123040200_license_plates';
import { Migration20261123060000_metrics_indexes } from './Migration20261123060000_metrics_indexes';
import { Migration20261123080000_insights } from './Migration20261123080000_insights';
import { Migration20261123100000_license_plate_documents } from './Migration20261123100000_license_plate_documents';
import { Migration20261125100000_open_lines_by_warehouse } from './Migration20261125100000_open_lines_by_warehouse';
import { Migration20261125110000_wall_actor } from './Migration20261125110000_wall_actor';
import { Migration20261125300000_durable_pipeline } from './Migration20261125300000_durable_pipeline';
import { Migration20261125400000_pending_items } from './Migration20261125400000_pending_items';
import { Migration20261125400100_lights } from './Migration20261125400100_lights';
import { Migration20261125500000_outbox_bounded_reads } from './Migration20261125500000_outbox_bounded_reads';
import { Migration20261127171254_printers } from './Migration20261127171254_printers';
import { Migration20261127174830_stats_refusals_by_reason } from './Migration20261127174830_stats_refusals_by_reason';

/** Every migration, in order. Listed explicitly so the same list runs under tsx, jest and compiled JS. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122100000_webhooks', class: Migration20261122100000_webhooks },
  { name: 'Migration20261123010000_credentials_version', class: Migration20261123010000_credentials_version },
  { name: 'Migration20261123030000_event_pipeline', class: Migration20261123030000_event_pipeline },
  { name: 'Migration20261123040000_transparency_codes', class: Migration20261123040000_transparency_codes },
  { name: 'Migration20261123040100_auto_login_tokens', class: Migration20261123040100_auto_login_tokens },
  { name: 'Migration20261123040200_license_plates', class: Migration20261123040200_license_plates },
  { name: 'Migration20261123060000_metrics_indexes', class: Migration20261123060000_metrics_indexes },
  { name: 'Migration20261123080000_insights', class: Migration20261123080000_insights },
  { name: 'Migration20261123100000_license_plate_documents', class: Migration20261123100000_license_plate_documents },
  { name: 'Migration20261125100000_open_lines_by_warehouse', class: Migration20261125100000_open_lines_by_warehouse },
  { name: 'Migration20261125110000_wall_actor', class: Migration20261125110000_wall_actor },
  { name: 'Migration20261125300000_durable_pipeline', class: Migration20261125300000_durable_pipeline },
  { name: 'Migration20261125400000_pending_items', class: Migration20261125400000_pending_items },
  { name: 'Migration20261125400100_lights', class: Migration20261125400100_lights },
  { name: 'Migration20261125500000_outbox_bounded_reads', class: Migration20261125500000_outbox_bounded_reads },
  { name: 'Migration20261127171254_printers', class: Migration20261127171254_printers },
  { name: 'Migration20261127174830_stats_refusals_by_reason', class: Migration20261127174830_stats_refusals_by_reason },
];
