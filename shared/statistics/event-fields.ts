import type { AnyEventType } from '../events/event-schemas';

const ITEM_TYPES = ['sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled'] as const satisfies readonly AnyEventType[];

/**
 * The event fields the statistics' SQL reads from the outbox's JSON (rollup.queries.ts), each with the
 * types it is read from: the statistics' side of the event contract. test/unit/event-contract.test.ts
 * checks that the SQL reads no path missing here and that each path is a field of those types' schemas
 * (shared/events/event-schemas.ts), so a renamed field fails a test instead of counting nothing.
 */
export const STATS_EVENT_FIELDS: readonly { path: string; types: readonly AnyEventType[] }[] = [
  { path: 'command', types: ['command.refused'] },
  { path: 'code', types: ['command.refused'] },
  { path: 'userId', types: ['command.refused'] },
  { path: 'barcodeInputMethod', types: ['command.refused'] },
  { path: 'item.userId', types: ITEM_TYPES },
  { path: 'item.sku', types: ITEM_TYPES },
  { path: 'item.barcodeInputMethod', types: ITEM_TYPES },
  { path: 'item.crc', types: ITEM_TYPES },
  { path: 'item.position', types: ITEM_TYPES },
  { path: 'item.confirmedUnits', types: ['sort-box-item.confirmed'] },
  { path: 'item.units', types: ['sort-box-item.confirmed'] },
  { path: 'item.confirmedAt', types: ['sort-box-item.confirmed'] },
  { path: 'item.createdAt', types: ['sort-box-item.confirmed'] },
  { path: 'sortBox.crc', types: ['sort-box.completed'] },
  { path: 'sortBox.position', types: ['sort-box.completed'] },
];
