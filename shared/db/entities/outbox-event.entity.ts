import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** An event written in the transaction of the change it describes; relayed once its id is below the horizon (outbox_horizon). */
export const OutboxEvent = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_event',
  properties: (p) => ({
    id: p.bigint('number').primary().autoincrement(),
    eventId: p.uuid(),
    clientId: p.integer(),
    wallId: p.integer().nullable(),
    type: p.text(),
    occurredAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    data: p.json<Record<string, unknown>>(),
  }),
});
export type IOutboxEvent = InferEntity<typeof OutboxEvent>;
