import { createRedis } from '../../shared/redis/redis';
import { parseWallEventMessage, wallEventsChannel } from '../../shared/events/channels';
import { useTestApi, waitFor } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

describe('outbox: every state change is an event, relayed to the wall channel after commit', () => {
  const api = useTestApi({ workers: ['sorting', 'outbox'] });

  it('publishes session.started and sort-box-item.created (with crc, position, color) in order, once', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const sub = createRedis(api.deps.config.REDIS_URL);
    const received: { id: string; type: string; wallId: number; data: Record<string, any> }[] = [];
    const outboxIds: bigint[] = [];
    sub.on('message', (_c, m) => {
      const { outboxId, raw } = parseWallEventMessage(m);
      outboxIds.push(outboxId!);
      received.push(JSON.parse(raw));
    });
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
      // Stamped and committed before it is published: already marked.
      await waitFor(
        async () => {
          const [{ unpublished }] = await api.runtime.orm.em
            .fork()
            .execute<{ unpublished: string }[]>('select count(*) as unpublished from outbox_event where client_id = ? and id > (select through from outbox_horizon)', [floor.tenant.clientId]);
          return Number(unpublished) === 0;
        },
        { what: 'every event marked published' },
      );
      expect(new Set(received.map((e) => e.id)).size).toBe(received.length);
      // Each message carries its event's outbox id, in the wall's order.
      expect(outboxIds[0]! < outboxIds[1]!).toBe(true);
      const ids = await api.runtime.orm.em
        .fork()
        .execute<{ id: string; relayed: boolean }[]>('select id, id <= (select through from outbox_horizon) as relayed from outbox_event where event_id in (?) order by id', [received.map((e) => e.id)]);
      expect(ids.map((r) => BigInt(r.id))).toEqual(outboxIds);
      // Stamped with the relay's order, in the same order.
      expect(ids.every((r) => r.relayed)).toBe(true);
    } finally {
      sub.disconnect();
    }
  });
});
