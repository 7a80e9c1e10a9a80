import { randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '../../shared/redis/redis';
import { wallEventsChannel, wallViewChangesChannel, type WallEvent } from '../../shared/events/channels';
import { HubPublisher, type RelayedEvent } from '../../workers/outbox/relay.use-case';
import { recordingLogger } from '../support/log-sink';
import { waitFor } from '../support/wait-for';

/*
 * The relay's publisher, on the real Redis: before a batch of events it names their walls on the wall
 * view changes channel, so an API process drops those walls from its wall view cache before a hub that
 * got one of the events reads its wall (even when the command's own notice never came).
 */

describe("the relay's hub publisher", () => {
  const prefix = `hub-publisher-${randomUUID().slice(0, 8)}`;
  let redis: Redis;
  let subscriber: Redis;
  const heard: { channel: string; message: string }[] = [];

  beforeAll(async () => {
    redis = createRedis(process.env.REDIS_URL!);
    subscriber = createRedis(process.env.REDIS_URL!);
    subscriber.on('message', (channel: string, message: string) => heard.push({ channel, message }));
    await subscriber.subscribe(wallViewChangesChannel(prefix), wallEventsChannel(prefix, 7), wallEventsChannel(prefix, 9), wallEventsChannel(prefix, null));
  });
  afterAll(() => {
    subscriber.disconnect();
    redis.disconnect();
  });

  const event = (outboxId: string, wallId: number | null): RelayedEvent => ({
    outboxId,
    event: { id: randomUUID(), type: 'wall.updated', occurredAt: new Date().toISOString(), clientId: 1, wallId, data: {} } satisfies WallEvent,
  });

  it("names the batch's walls once, before their events", async () => {
    const publisher = new HubPublisher(redis, prefix, recordingLogger('info', 'test').log);
    publisher.add([event('1', 7), event('2', null), event('3', 9), event('4', 7)]);
    expect(await publisher.flush()).toBe(true);
    await waitFor(() => heard.length === 5, { timeoutMs: 5_000, what: 'the five messages' });
    expect(heard[0]).toEqual({ channel: wallViewChangesChannel(prefix), message: 'w:7,9' });
    expect(heard.slice(1).map((h) => h.channel)).toEqual([wallEventsChannel(prefix, 7), wallEventsChannel(prefix, null), wallEventsChannel(prefix, 9), wallEventsChannel(prefix, 7)]);
  });

  it('names no wall for a batch of events without one', async () => {
    heard.length = 0;
    const publisher = new HubPublisher(redis, prefix, recordingLogger('info', 'test').log);
    publisher.add([event('5', null)]);
    expect(await publisher.flush()).toBe(true);
    await waitFor(() => heard.length === 1, { timeoutMs: 5_000, what: 'the event' });
    expect(heard.map((h) => h.channel)).toEqual([wallEventsChannel(prefix, null)]);
  });
});
