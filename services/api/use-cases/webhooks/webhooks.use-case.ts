import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookDelivery, WebhookSubscription } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import { newWebhookSecret } from '../../../../shared/webhooks/webhook-signature';
import { webhookUrlProblem } from '../../../../shared/webhooks/webhook-target';
import { toWebhookDeliveryDto, toWebhookSubscriptionDto, type WebhookDeliveryDto, type WebhookSubscriptionDto } from './webhook.dto';

export interface CreateWebhookInput {
  url: string;
  events: string[];
  secret?: string;
}

/** POST /admin/webhooks. The URL's scheme and (unless allowed) private hosts are refused here; DNS names again at delivery. */
export async function createWebhook(em: EntityManager, clientId: number, input: CreateWebhookInput, allowPrivateTargets: boolean): Promise<WebhookSubscriptionDto> {
  const problem = webhookUrlProblem(input.url, allowPrivateTargets);
  if (problem) {
    throw new AppError('validation-failed', `The webhook URL '${input.url}' ${problem}.`, { errors: [{ path: 'url', message: problem }] });
  }
  // '*' already takes every type: store just that, so matching stays simple and the list reads plainly.
  const events = input.events.includes('*') ? ['*'] : [...new Set(input.events)];
  return em.transactional(async (tx) => {
    const sub = tx.create(WebhookSubscription, {
      clientId,
      url: input.url,
      events,
      secret: input.secret ?? newWebhookSecret(),
      isActive: true,
      createdAt: new Date(),
    });
    await tx.flush();
    return toWebhookSubscriptionDto(sub);
  });
}

export async function listWebhooks(em: EntityManager, clientId: number): Promise<WebhookSubscriptionDto[]> {
  const subs = await em.find(WebhookSubscription, { clientId }, { orderBy: { id: 'asc' } });
  return subs.map(toWebhookSubscriptionDto);
}

const notFound = (id: number) => new AppError('not-found', `Your company has no webhook subscription ${id}.`);

/** DELETE /admin/webhooks/{id}: its delivery history goes with it; jobs still queued find it gone and stop. */
export async function deleteWebhook(em: EntityManager, clientId: number, id: number): Promise<void> {
  const deleted = await em.nativeDelete(WebhookSubscription, { id, clientId });
  if (deleted === 0) throw notFound(id);
}

export async function listDeliveries(em: EntityManager, clientId: number, id: number, count: number): Promise<WebhookDeliveryDto[]> {
  if (!(await em.count(WebhookSubscription, { id, clientId }))) throw notFound(id);
  const rows = await em.find(WebhookDelivery, { subscriptionId: id, clientId }, { orderBy: { attemptedAt: 'desc', id: 'desc' }, limit: count });
  return rows.map(toWebhookDeliveryDto);
}
