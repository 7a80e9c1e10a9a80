import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES, type IWebhookDelivery, type IWebhookSubscription } from '../../../../shared/db/entities';

export const webhookSubscriptionDto = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(z.string()).describe("Event types (docs/api.md §8), or ['*'] for every type"),
  secret: z.string().describe('whsec_<base64>: the key receivers verify webhook-signature with (Standard Webhooks)'),
  isActive: z.boolean(),
  createdAt: z.string().describe('ISO 8601 UTC'),
});
export type WebhookSubscriptionDto = z.infer<typeof webhookSubscriptionDto>;

export const webhookDeliveryDto = z.object({
  id: z.number().int(),
  subscriptionId: z.number().int(),
  eventId: z.string().describe('Also the webhook-id header: receivers deduplicate on it'),
  eventType: z.string(),
  attempt: z.number().int().describe('1 for the first attempt'),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).describe('pending while the request is under way'),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  attemptedAt: z.string(),
  nextAttemptAt: z.string().nullable().describe('When the next attempt is due after a failure; null when none follows'),
});
export type WebhookDeliveryDto = z.infer<typeof webhookDeliveryDto>;

export function toWebhookSubscriptionDto(s: IWebhookSubscription): WebhookSubscriptionDto {
  return { id: s.id, url: s.url, events: [...s.events], secret: s.secret, isActive: s.isActive, createdAt: new Date(s.createdAt).toISOString() };
}

export function toWebhookDeliveryDto(d: IWebhookDelivery): WebhookDeliveryDto {
  return {
    id: Number(d.id),
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    attempt: d.attempt,
    status: d.status,
    responseStatus: d.responseStatus ?? null,
    error: d.error ?? null,
    durationMs: d.durationMs ?? null,
    attemptedAt: new Date(d.attemptedAt).toISOString(),
    nextAttemptAt: d.nextAttemptAt ? new Date(d.nextAttemptAt).toISOString() : null,
  };
}
