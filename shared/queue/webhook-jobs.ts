import type { WallEvent } from '../events/channels';
import type { JobAttempt } from './job-queue';
import type { JobPayloads } from './jobs';

export { PermanentJobFailure as PermanentDeliveryFailure } from './job-queue';

/**
 * The webhook deliveries' job types: one event to one subscription (job `webhook.deliver` on the queue
 * kind `webhooks`, Redis name `{webhook-deliveries}`, jobs.ts), sent by the worker kind `webhooks`.
 */
export type WebhookJob = JobPayloads['webhook.deliver'] & { event: WallEvent };

/** What the delivery records about its attempt (1-based) and the wait before the next one. */
export type DeliveryAttempt = Pick<JobAttempt, 'attempt' | 'maxAttempts' | 'retryDelayMs'>;
