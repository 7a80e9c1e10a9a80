import type { Runtime } from '../../shared/runtime/runtime';
import { wallEventsChannel, type WallEvent } from '../../shared/events/channels';
import { createJobQueue } from '../../shared/queue/job-queue';
import { OUTBOX_CONSUMERS } from './consumers';
import { listenForOutbox } from './outbox-listener';
import { relayOnce } from './relay.use-case';

/**
 * Worker kind `outbox`: relays events committed with their change (docs/api.md §8) in commit order:
 * live to Redis pub/sub per wall (SSE, WebSocket hubs), and as jobs (OUTBOX_CONSUMERS): one per
 * batch for each event consumer (audit, stats, labels), one per event and subscription for webhooks. Wakes on NOTIFY outbox_event; polls every
 * OUTBOX_POLL_MS as a back-up; drains without pause while there is a backlog.
 */
export async function startOutboxWorker(runtime: Runtime): Promise<void> {
  const { ormSql, redis, log, config } = runtime;
  const publish = async (events: WallEvent[]) => {
    const pipeline = redis.pipeline();
    for (const e of events) pipeline.publish(wallEventsChannel(config.QUEUE_PREFIX, e.wallId), JSON.stringify(e));
    await pipeline.exec();
  };
  const jobs = createJobQueue(runtime.queueSettings, log);
  const listener = listenForOutbox(config.DATABASE_URL, log);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      let n = 0;
      try {
        n = await relayOnce(ormSql, publish, (list) => jobs.enqueueBulk(list), OUTBOX_CONSUMERS, config.OUTBOX_BATCH_SIZE);
      } catch (err) {
        log.error({ err }, 'outbox relay failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      // A full batch: more are waiting. Otherwise sleep until a commit notifies (or the back-up poll).
      if (n < config.OUTBOX_BATCH_SIZE && !stopped) await listener.wait(config.OUTBOX_POLL_MS);
    }
  })();
  log.info({ consumers: OUTBOX_CONSUMERS.map((c) => c.name), pollMs: config.OUTBOX_POLL_MS }, 'outbox relay started');
  runtime.onClose('outbox relay', async () => {
    stopped = true;
    await listener.close();
    await loop;
    await jobs.close();
  });
}
