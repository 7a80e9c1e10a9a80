import IORedis from 'ioredis';
import { REQUEST_PATH_REDIS, createRedis } from '../../shared/redis/redis';
import { keepSubscribed } from '../../shared/redis/subscriber';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { waitFor } from '../support/wait-for';

/*
 * A subscriber connection across reconnects (shared/redis/subscriber.ts): a SUBSCRIBE refused after a
 * reconnect is handled and sent again, never an unhandled rejection (which stops a process of the
 * service), and once Redis accepts it the channel's messages arrive again and the owner is told.
 *
 * The refusal is Redis's own, on a Redis of the test's own: an ACL user loses the permission of its
 * channel, so Redis cuts its subscribed connection and answers the SUBSCRIBE after the reconnect with
 * NOPERM (each refusal an entry of ACL LOG), until the permission is given back.
 */

const CHANNEL = 'wall-events-test';

describe('a subscriber connection across reconnects', () => {
  let redis: OwnRedis;
  let admin: IORedis;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    redis = await startOwnRedis({ persistence: false });
    admin = new IORedis(redis.url, { maxRetriesPerRequest: 1 });
    await admin.call('ACL', 'SETUSER', 'hub', 'on', '>hub-password', '~*', '+@all', `&${CHANNEL}`);
    process.on('unhandledRejection', onUnhandled);
  });

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    admin?.disconnect();
    await redis?.close();
  });

  it('subscribes again after a refused SUBSCRIBE, with no unhandled rejection', async () => {
    const url = redis.url.replace('redis://', 'redis://hub:hub-password@');
    // The options of the service's request-path subscribers (a command timeout, one retry), reconnecting quickly.
    const subscriber = createRedis(url, { ...REQUEST_PATH_REDIS, retryStrategy: () => 50 });
    const received: string[] = [];
    let resumed = 0;
    subscriber.on('message', (_channel: string, message: string) => received.push(message));
    keepSubscribed(subscriber, () => [CHANNEL], { resumed: () => resumed++ });
    try {
      await subscriber.subscribe(CHANNEL);
      await admin.publish(CHANNEL, 'before');
      await waitFor(() => received.includes('before'), { what: 'the message published before the fault' });

      // The permission taken away: the connection is cut, and every SUBSCRIBE after the reconnect refused.
      await admin.call('ACL', 'LOG', 'RESET');
      await admin.call('ACL', 'SETUSER', 'hub', 'resetchannels');
      const refusals = async () => ((await admin.call('ACL', 'LOG')) as unknown[][]).reduce((n, entry) => n + Number(entry[1]), 0);
      // Refused, and sent again (the log counts each refusal of the same kind in one entry).
      await waitFor(async () => (await refusals()) >= 2, { timeoutMs: 15_000, what: 'the SUBSCRIBE refused twice after the reconnect' });
      expect(resumed).toBe(0);

      await admin.call('ACL', 'SETUSER', 'hub', `&${CHANNEL}`);
      await waitFor(() => resumed >= 1, { timeoutMs: 15_000, what: 'the channel subscribed again' });
      await admin.publish(CHANNEL, 'after');
      await waitFor(() => received.includes('after'), { what: 'the message published once the channel is back' });
      expect(unhandled).toEqual([]);
    } finally {
      subscriber.disconnect();
    }
  });
});
