import { defineEntity, type InferEntity } from '@mikro-orm/core';

import type { SortBoxItemStatus } from '../../domain/statuses';

export const BARCODE_INPUT_METHODS = ['Scanned', 'Typed', 'KeyedIn', 'EmbeddedScanner', 'Camera'] as const;
export type BarcodeInputMethod = (typeof BARCODE_INPUT_METHODS)[number];

/** One scan: one unit headed for one slot, pending until the sorter confirms it. */
export const SortBoxItem = defineEntity({
  name: 'SortBoxItem',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'sort_box_item',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    wallId: p.integer(),
    /** Null once the slot was detached; the item keeps its history and crc. */
    sortBoxId: p.integer().nullable(),
    crc: p.character().length(8),
    orderId: p.integer(),
    orderItemId: p.integer(),
    productId: p.integer(),
    sku: p.text(),
    barcode: p.text(),
    barcodeInputMethod: p.text().$type<BarcodeInputMethod>().default('Scanned'),
    userId: p.integer(),
    sessionId: p.integer(),
    color: p.text(),
    units: p.integer().default(1),
    confirmedUnits: p.integer().default(0),
    status: p.text().$type<SortBoxItemStatus>().default('PendingConfirmation'),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    confirmedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
    /** Whether its product required a serial when it was scanned (docs/api.md "Serial numbers"). */
    requiresSerial: p.boolean().default(false),
    /** The unit's serial, set by its confirm; unique per client and product. */
    serial: p.text().nullable(),
  }),
});
export type ISortBoxItem = InferEntity<typeof SortBoxItem>;
