import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const SESSION_STATUSES = ['Connected', 'Ended'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const SESSION_END_REASONS = ['Stopped', 'Replaced', 'Expired', 'Disconnected'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

export const SorterSession = defineEntity({
  name: 'SorterSession',
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
