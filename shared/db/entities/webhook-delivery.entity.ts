import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const WEBHOOK_DELIVERY_STATUSES = ['succeeded', 'failed', 'pending'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** One attempt to POST one event to one subscription; `pending` while the request is under way. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: (p) => ({
    id: p.bigint('number').primary().autoincrement(),
    clientId: p.integer(),
    subscriptionId: p.integer(),
    eventId: p.uuid(),
    eventType: p.text(),
    attempt: p.integer(),
    status: p.text().$type<WebhookDeliveryStatus>(),
    responseStatus: p.integer().nullable(),
    error: p.text().nullable(),
    durationMs: p.integer().nullable(),
    attemptedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    nextAttemptAt: p.datetime().nullable(),
  }),
});
export type IWebhookDelivery = InferEntity<typeof WebhookDelivery>;
