import type { SqlRunner } from '../../shared/db/named-sql';
import type { CommandClient } from '../../shared/commands/command-client';
import type { Logger } from '../../shared/logging/logger';
import { WEBHOOK_MAX_ATTEMPTS } from '../../shared/webhooks/webhook-attempts';
import { dueSessions, failAbandonedAttempts, giveUpAbandonedDeliveries } from './sweep.queries';

const BATCH = 500;
// A webhook attempt takes at most 10 s; one still `pending` after this long will never be finished.
const ABANDONED_DELIVERY_MINUTES = 10;
const NEVER_RECORDED = 'The outcome of this attempt was never recorded (the worker stopped or the database was unavailable).';

/**
 * One sweep: expire idle sessions through their walls' queues; mark webhook attempts whose outcome was
 * never recorded as failed, so the delivery history never shows one `pending` forever (the last attempt
 * of a delivery has no next attempt to do it), and give up deliveries whose last attempt was left so.
 * The retention of old records runs after it (retention.use-case.ts).
 */
export async function sweepOnce(db: SqlRunner, commands: CommandClient, log: Logger): Promise<{ expired: number }> {
  const due = await dueSessions(db, { limit: BATCH });
  const results = await Promise.allSettled(
    due.map((s) => commands.execute('session.expire', { clientId: s.client_id, wallId: s.wall_id, sessionId: s.id })),
  );
  const expired = results.filter((r) => r.status === 'fulfilled' && r.value !== null).length;
  const failed = results.filter((r) => r.status === 'rejected');
  if (expired) log.info({ expired }, `expired ${expired} idle session(s)`);
  if (failed.length) log.warn({ failed: failed.length, reason: String((failed[0] as PromiseRejectedResult).reason) }, 'some idle sessions could not be expired; next sweep retries');
  await failAbandonedAttempts(db, { minutes: ABANDONED_DELIVERY_MINUTES, error: NEVER_RECORDED });
  const [{ n: givenUp }] = await giveUpAbandonedDeliveries(db, { maxAttempts: WEBHOOK_MAX_ATTEMPTS, error: NEVER_RECORDED });
  if (givenUp) log.warn({ deliveries: givenUp }, 'webhook deliveries whose last attempt was never recorded were given up (failed_job)');
  return { expired };
}
