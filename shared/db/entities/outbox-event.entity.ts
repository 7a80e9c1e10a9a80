import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** An event written in the transaction of the change it describes; relayed once committed. */
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
    publishedAt: p.datetime().nullable(),
  }),
});
export type IOutboxEvent = InferEntity<typeof OutboxEvent>;
