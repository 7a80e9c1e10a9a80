import IORedis from 'ioredis';
import type { RedisConnection } from './connection';

/** How long a SUBSCRIBE that failed on a connection still up waits before it is sent again. */
const RETRY_MS = 1_000;

/**
 * Keeps a subscriber connection's channels subscribed across reconnects, with every failure handled.
 *
 * ioredis resubscribes by itself after a reconnect (its `autoResubscribe`), but drops the promise of
 * that SUBSCRIBE: when Redis goes away again before answering it (a restart right after a restart), or
 * does not answer within the connection's command timeout, the rejection is unhandled, and the
 * service's policy for an unhandled rejection is to exit (shared/runtime/runtime.ts). A connection
 * given to this has that resubscription off; here, after each reconnect, the channels `channels()`
 * names at that moment are subscribed, again every second while the connection stays up and they are
 * not, and `resumed` is called once they are in place (messages published from then on arrive).
 *
 * The first connect is the owner's: it subscribes as it goes (a SUBSCRIBE sent before the connection
 * is up waits for it), unless `initial` hands it to this too: then the first connect is subscribed the
 * same way, again every second until it is, and `resumed` is called once it is. A Redis Cluster's
 * client resubscribes through its own subscriber node; this only adds a SUBSCRIBE of channels already
 * subscribed there, which Redis ignores.
 */
export function keepSubscribed(client: RedisConnection, channels: () => string[], on: { resumed?(): void; initial?: boolean } = {}): void {
  if (client instanceof IORedis) client.options.autoResubscribe = false;
  // Not subscribed yet counts as lost when the first subscription is this function's too.
  let lost = on.initial ?? false;
  let attempt = 0;
  const subscribe = (round: number) => {
    if (round !== attempt || client.status !== 'ready') return;
    const wanted = channels();
    const sent = wanted.length > 0 ? client.subscribe(...wanted) : Promise.resolve();
    sent.then(
      () => {
        if (round !== attempt) return;
        lost = false;
        on.resumed?.();
      },
      // Still up: once more in a second. Lost meanwhile: the next 'ready' begins again.
      () => setTimeout(() => subscribe(round), RETRY_MS).unref(),
    );
  };
  client.on('close', () => {
    lost = true;
    attempt++;
  });
  client.on('ready', () => {
    if (!lost) return;
    attempt++;
    subscribe(attempt);
  });
  if (lost && client.status === 'ready') {
    attempt++;
    subscribe(attempt);
  }
}
