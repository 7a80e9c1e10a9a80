import { createRedis } from '../../shared/redis/redis';
import { wallEventsChannel } from '../../shared/events/channels';
import { useTestApi, waitFor } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

describe('outbox: every state change is an event, relayed to the wall channel after commit', () => {
  const api = useTestApi({ workers: ['sorting', 'outbox'] });

  it('publishes session.started and sort-box-item.created (with crc, position, color) in order, once', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const sub = createRedis(api.deps.config.REDIS_URL);
    const received: { id: string; type: string; wallId: number; data: Record<string, any> }[] = [];
    sub.on('message', (_c, m) => received.push(JSON.parse(m)));
    await sub.subscribe(wallEventsChannel(api.deps.config.QUEUE_PREFIX, floor.wallId));
    try {
      const a = await floor.sorter(1);
      const { body: s } = await connect(api, floor, a.auth);
      const item = await scan(api, a.auth, s.token, 'SKU-A');
      await waitFor(() => received.length >= 2, { what: 'two events' });
      expect(received.map((e) => e.type)).toEqual(['session.started', 'sort-box-item.created']);
      expect(received[1]).toMatchObject({
        wallId: floor.wallId,
        data: { color: 'Red', colorHex: '#E53935', sortBox: { crc: item.body.crc, position: 1 }, item: { id: item.body.id } },
      });
      // Published inside the relay's transaction, marked at its commit: wait for the commit.
      await waitFor(
        async () => {
          const [{ unpublished }] = await api.runtime.orm.em
            .fork()
            .execute<{ unpublished: string }[]>('select count(*) as unpublished from outbox_event where client_id = ? and published_at is null', [floor.tenant.clientId]);
          return Number(unpublished) === 0;
        },
        { what: 'every event marked published' },
      );
      expect(new Set(received.map((e) => e.id)).size).toBe(received.length);
    } finally {
      sub.disconnect();
    }
  });
});
