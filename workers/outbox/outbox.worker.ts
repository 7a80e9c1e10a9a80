import type { Runtime } from '../../shared/runtime/runtime';
import { wallEventsChannel } from '../../shared/events/channels';
import { createWebhookQueue } from '../../shared/queue/notification-queue';
import { relayOnce, type RelayedEvent } from './relay.use-case';


const IDLE_POLL_MS = 50;

/**
 * Worker kind `outbox`: relays events committed with their change (docs/api.md §8) to Redis pub/sub,
 * per wall, in commit order, and enqueues one webhook delivery job per matching subscription (the
 * `notifications` worker sends them). Polls while idle; drains without pause while there is a backlog.
 */
export async function startOutboxWorker(runtime: Runtime): Promise<void> {
  const { orm, redis, log, config } = runtime;
  const publish = async (events: RelayedEvent[]) => {
    const pipeline = redis.pipeline();
    for (const e of events) pipeline.publish(wallEventsChannel(config.QUEUE_PREFIX, e.wallId), JSON.stringify(e));
    await pipeline.exec();
  };
  const webhooks = createWebhookQueue(runtime.queueSettings, config.WEBHOOK_RETRY_BASE_MS, log);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      let n = 0;
      try {
        n = await relayOnce(orm.em.fork(), publish, (jobs) => webhooks.enqueue(jobs));
      } catch (err) {
        log.error({ err }, 'outbox relay failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
      if (n === 0) await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
    }
  })();
  log.info('outbox relay started');
  runtime.onClose('outbox relay', async () => {
    stopped = true;
    await loop;
    await webhooks.close();
  });
}
