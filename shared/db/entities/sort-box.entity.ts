import { defineEntity, type InferEntity } from '@mikro-orm/core';

import type { SlotStatus } from '../../domain/statuses';

/** A slot of a wall: one light device. orderId is set exactly when the slot is not Empty. */
export const SortBox = defineEntity({
  name: 'SortBox',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'sort_box',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    wallId: p.integer(),
    serialNumber: p.text(),
    crc: p.character().length(8),
    position: p.integer(),
    status: p.text().$type<SlotStatus>().default('Empty'),
    orderId: p.integer().nullable(),
    assignedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  }),
});
export type ISortBox = InferEntity<typeof SortBox>;
