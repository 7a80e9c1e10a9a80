import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A client's webhook endpoint (docs/api.md §8): the event types it takes (`*` for all) and its signing secret. */
export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscription',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    url: p.text(),
    events: p.array<string>().columnType('text[]'),
    secret: p.text(),
    isActive: p.boolean().default(true),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  }),
});
export type IWebhookSubscription = InferEntity<typeof WebhookSubscription>;
