import { z } from 'zod';
import { EVENT_TYPES } from '../../../shared/events/event-types';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { webhookDeliveryDto, webhookSubscriptionDto } from '../use-cases/webhooks/webhook.dto';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks } from '../use-cases/webhooks/webhooks.use-case';

const tags = ['Admin: webhooks'];

// Standard Webhooks secrets: whsec_ + base64 of 24..64 random bytes.
const secret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must be whsec_ followed by base64')
  .refine((s) => {
    const n = Buffer.from(s.slice('whsec_'.length), 'base64').length;
    return n >= 24 && n <= 64;
  }, 'must encode 24 to 64 bytes after whsec_');

export const webhooksRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/admin/webhooks',
    operationId: 'CreateWebhook',
    summary: 'Subscribe a URL to events (Standard Webhooks)',
    description:
      'Each event of the listed types (the event types of the hub streams; `*` for all) is POSTed as JSON with headers webhook-id (the event id, for ' +
      'deduplication), webhook-timestamp and webhook-signature (v1, HMAC-SHA256 with the secret). A non-2xx answer, a redirect or ' +
      'no answer within 10 s is retried with exponential backoff, 12 attempts over about 3 hours. The secret is generated when not given. ' +
      'Loopback, private and link-local targets are refused unless the service runs with WEBHOOK_ALLOW_PRIVATE_TARGETS.',
    tags,
    access: ['Admin'],
    body: z.object({
      url: z.string().trim().min(1).max(2000).describe('http or https URL'),
      events: z
        .array(z.enum([...EVENT_TYPES, '*']))
        .min(1, "give at least one event type, or '*' for all")
        .max(EVENT_TYPES.length + 1)
        .describe("The event types to receive, or ['*'] for every type"),
      secret: secret.optional().describe('whsec_<base64 of 24..64 bytes>; generated when absent'),
    }),
    response: webhookSubscriptionDto,
    errors: ['validation-failed'],
    handler: ({ em, auth, body, deps }) => createWebhook(em, auth.clientId, body, deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/webhooks',
    operationId: 'ListWebhooks',
    summary: "Your company's webhook subscriptions, with their secrets",
    description: 'Oldest first. The secrets are shown to Admins only; receivers verify webhook-signature with them.',
    action: 'list the webhook subscriptions',
    tags,
    access: ['Admin'],
    response: z.array(webhookSubscriptionDto),
    handler: ({ em, auth }) => listWebhooks(em, auth.clientId),
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/webhooks/{id}',
    operationId: 'DeleteWebhook',
    summary: 'Remove a webhook subscription and its delivery history',
    description: 'Deliveries still waiting for a retry are dropped.',
    tags,
    access: ['Admin'],
    params: z.object({ id: idParam.describe('Webhook subscription id') }),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => deleteWebhook(em, auth.clientId, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/webhooks/{id}/deliveries',
    operationId: 'ListWebhookDeliveries',
    summary: "A subscription's delivery attempts, newest first",
    action: "list a webhook subscription's deliveries",
    description: 'One row per attempt: a delivery retried three times shows four rows with the same eventId.',
    tags,
    access: ['Admin'],
    params: z.object({ id: idParam.describe('Webhook subscription id') }),
    query: z.object({ count: z.coerce.number().int().min(1).max(1000).default(50).describe('1..1000, default 50') }),
    response: z.array(webhookDeliveryDto),
    errors: ['not-found'],
    handler: ({ em, auth, params, query }) => listDeliveries(em, auth.clientId, params.id, query.count),
  }),
];
