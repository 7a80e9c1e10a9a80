import { defineEntity, type InferEntity } from '@mikro-orm/core';

import type { SessionEndReason, SessionStatus } from '../../domain/statuses';

export const SorterSession = defineEntity({
  name: 'SorterSession',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'sorter_session',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    token: p.text(),
    clientId: p.integer(),
    wallId: p.integer(),
    userId: p.integer(),
    picklistId: p.integer().nullable(),
    color: p.text(),
    status: p.text().$type<SessionStatus>().default('Connected'),
    startedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    lastActivityAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    expiresAt: p.datetime(),
    endedAt: p.datetime().nullable(),
    endReason: p.text().$type<SessionEndReason>().nullable(),
  }),
});
export type ISorterSession = InferEntity<typeof SorterSession>;
