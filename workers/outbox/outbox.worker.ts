import type { Runtime } from '../../shared/runtime/runtime';
import { isDependencyOutage } from '../../shared/errors/outage';
import { foldedWarning } from '../../shared/logging/logger';
import { LISTENER_APPLICATION_NAME, notificationsOf, OUTBOX_CHANNEL, RELAYED_CHANNEL } from '../pipeline/notifications';
import { relayFeedOf } from '../pipeline/relay-feed';
import { HubPublisher, Relay, stepAndFeed, type RelayedEvent } from './relay.use-case';
import { otherListeners } from './outbox.queries';

/**
 * Worker kind `outbox`: the relay. Moves the horizon below which every outbox event is committed (the
 * consumers read by outbox id up to it, recorded in PostgreSQL) and publishes the events it passes live
 * to their walls' Redis channels (SSE, WebSocket hubs). Wakes on NOTIFY outbox_event, steps OUTBOX_RELAY_DELAY_MS later and at most every OUTBOX_RELAY_INTERVAL_MS
 * (OUTBOX_RELAY_BUSY_INTERVAL_MS after a step that passed the events of BUSY_WALLS walls or more); polls every OUTBOX_POLL_MS as a back-up; drains while there is a backlog. One relay is active at a
 * time (an advisory lock); others are stand-bys. A relay that becomes the active one publishes its predecessor's last
 * few seconds again, in case it died between its commit and its publish (hubs drop what they sent).
 */
/**
 * A step that passed the events of this many walls or more marks a busy floor: the next one waits
 * OUTBOX_RELAY_BUSY_INTERVAL_MS, so it covers more commits. One sorter, or two, writes to fewer walls:
 * their events keep the short interval.
 */
export const BUSY_WALLS = 3;

/** How many walls the events belong to, counted up to `enough`. */
export function wallsOf(events: readonly RelayedEvent[], enough = BUSY_WALLS): number {
  const walls = new Set<number | null>();
  for (const e of events) {
    walls.add(e.event.wallId ?? null);
    if (walls.size >= enough) break;
  }
  return walls.size;
}

/**
 * How long the relay waits before a step: at least `delayMs` (OUTBOX_RELAY_DELAY_MS) when it was woken
 * (a commit's notification, the poll), nothing before a step that goes on with a backlog; and while
 * `sinceLastStepMs` is under `intervalMs`, the rest of the interval.
 */
export function relayStepWait(woken: boolean, sinceLastStepMs: number, intervalMs: number, delayMs: number): number {
  return Math.max(woken ? delayMs : 0, intervalMs - sinceLastStepMs, 0);
}

/** How often the relay looks whether another process listens for its steps' notification. */
const LISTENERS_LOOK_MS = 1000;

export async function startOutboxWorker(runtime: Runtime): Promise<void> {
  const { workerSql, redis, log, config } = runtime;
  const publisher = new HubPublisher(redis, config.QUEUE_PREFIX, log);
  const notifications = notificationsOf(runtime);
  const waiter = notifications.waiter(OUTBOX_CHANNEL);
  let stopped = false;
  const relay = new Relay(workerSql, config.OUTBOX_BATCH_SIZE);
  // A step's NOTIFY outbox_relayed wakes the light gateways of other processes; this process's own takes
  // the steps in memory, and the notification only woke its listener and the listener's backend once
  // more per step. Notified while another process's listener is connected (or the look fails); a
  // process that starts listening is heard within a look (its gateway polls until then).
  const lookForListeners = async () => {
    try {
      const [row] = await otherListeners(workerSql, { listener: LISTENER_APPLICATION_NAME, own: notifications.backendPid() });
      relay.notifyOthers = row?.others ?? true;
    } catch {
      relay.notifyOthers = true;
    }
  };
  await lookForListeners();
  const listenersTimer = setInterval(() => void lookForListeners(), LISTENERS_LOOK_MS).unref();
  // The steps' events, to the consumers of this process that read at every step (the light gateway).
  const feed = relayFeedOf(runtime);
  let active = false;
  let lastStamp = 0;
  let held = 0;
  let interval = config.OUTBOX_RELAY_INTERVAL_MS;
  // Whether the loop slept until a commit's notification (or the poll), rather than going on with a backlog.
  let woken = false;
  // PostgreSQL away: expected, one line per interval without a stack; anything else in full.
  const outage = foldedWarning(log, 'outbox relay waits for the database');
  const loop = (async () => {
    while (!stopped) {
      // Woken by a commit: first its command's answer (OUTBOX_RELAY_DELAY_MS: on a machine whose cores
      // are taken, the step and the publishes and light commands behind it would run on the core the
      // answer's hops need); and right after the last stamp, let the commits of the next moments join
      // this one (longer on a busy floor).
      const wait = relayStepWait(woken, Date.now() - lastStamp, interval, config.OUTBOX_RELAY_DELAY_MS);
      woken = false;
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (stopped) break;
      lastStamp = Date.now();
      // This step covers every commit notified so far: a notification that came while it slept needs no step of its own.
      waiter.clear();
      let more = false;
      try {
        const step = await stepAndFeed(relay, feed);
        more = step.more;
        if (step.locked && !active) log.info({ republished: step.republish.length }, 'outbox relay is the active one');
        active = step.locked;
        publisher.add(step.republish);
        publisher.add(step.events);
        // Not notified: this process's own waiters on the channel (a consumer set to read at once that
        // does not take the steps in memory) are woken as the notification would have.
        if (!relay.notifyOthers && step.events.length > 0) notifications.wake(RELAYED_CHANNEL);
        interval = wallsOf(step.events) >= BUSY_WALLS ? Math.max(config.OUTBOX_RELAY_BUSY_INTERVAL_MS, config.OUTBOX_RELAY_INTERVAL_MS) : config.OUTBOX_RELAY_INTERVAL_MS;
      } catch (err) {
        if (isDependencyOutage(err)) outage(err as Error);
        else log.error({ err }, 'outbox relay failed; retrying');
        active = false;
        await waiter.wait(1000);
        continue;
      }
      // Redis away: what is not published stays in order in memory; the horizon (and the consumers) go on.
      const published = await publisher.flush();
      // A full batch: more are waiting. The horizon held back by writers still at work: look again after
      // the interval (their commits may have notified before the step saw their locks gone). Otherwise
      // sleep until a commit notifies (or the back-up poll).
      if (!stopped && (!more || !published)) {
        const pollMs = published ? config.OUTBOX_POLL_MS : Math.min(config.OUTBOX_POLL_MS, 1000);
        // Held back by writers step after step (a long transaction): the looks grow apart, doubling.
        held = relay.waiting ? held + 1 : 0;
        await waiter.wait(held ? Math.min(pollMs, Math.max(config.OUTBOX_RELAY_INTERVAL_MS, 1) * 2 ** Math.min(held - 1, 10)) : pollMs);
        woken = true;
      }
    }
  })();
  log.info({ pollMs: config.OUTBOX_POLL_MS }, 'outbox relay started');
  runtime.onClose('outbox relay', async () => {
    stopped = true;
    clearInterval(listenersTimer);
    waiter.wake();
    await loop;
    feed.broken();
    await publisher.flush();
  });
}
