import type { EntityManager } from '@mikro-orm/postgresql';
import type { CommandClient } from '../../shared/commands/command-client';
import type { Logger } from '../../shared/logging/logger';

const BATCH = 500;
const RECORD_RETENTION = "interval '1 day'";
// A webhook attempt takes at most 10 s; one still `pending` after this long will never be finished.
const ABANDONED_DELIVERY = "interval '10 minutes'";

/**
 * One sweep: expire idle sessions through their walls' queues; prune old dedup records; mark webhook
 * attempts whose outcome was never recorded as failed, so the delivery history never shows one
 * `pending` forever (the last attempt of a delivery has no next attempt to do it).
 */
export async function sweepOnce(em: EntityManager, commands: CommandClient, log: Logger): Promise<{ expired: number }> {
  const due = await em.execute<{ id: number; client_id: number; wall_id: number }[]>(
    `select id, client_id, wall_id from sorter_session where status = 'Connected' and expires_at <= now() order by expires_at limit ${BATCH}`,
  );
  const results = await Promise.allSettled(
    due.map((s) => commands.execute('session.expire', { clientId: s.client_id, wallId: s.wall_id, sessionId: s.id })),
  );
  const expired = results.filter((r) => r.status === 'fulfilled' && r.value !== null).length;
  const failed = results.filter((r) => r.status === 'rejected');
  if (expired) log.info({ expired }, `expired ${expired} idle session(s)`);
  if (failed.length) log.warn({ failed: failed.length, reason: String((failed[0] as PromiseRejectedResult).reason) }, 'some idle sessions could not be expired; next sweep retries');
  await em.execute(`delete from applied_command where applied_at < now() - ${RECORD_RETENTION}`);
  await em.execute(`delete from idempotency_record where created_at < now() - ${RECORD_RETENTION}`);
  await em.execute(
    `update webhook_delivery set status = 'failed', error = ? where status = 'pending' and attempted_at < now() - ${ABANDONED_DELIVERY}`,
    ['The outcome of this attempt was never recorded (the worker stopped or the database was unavailable).'],
  );
  return { expired };
}
