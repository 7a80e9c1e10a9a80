import { randomUUID } from 'node:crypto';
import { recentlyRelayed } from '../../workers/outbox/outbox.queries';
import { useTestApi } from '../support/test-api';
import { buildFloor } from '../support/sorting-floor';

/*
 * A relay that becomes the active one publishes its predecessor's last events again (the predecessor may
 * have died between moving the horizon and publishing), and a hub connection sends each event once, in
 * outbox order, dropping any event at or below the last it sent (services/api/events/event-stream.ts).
 * So the events published again must come in outbox id order: sorted as text, 10 came before 9, and a
 * hub that received 10 dropped 4 to 9 for good.
 */
describe('the events a relay publishes again on taking over', () => {
  const api = useTestApi();

  it('come in outbox id order, also across a power of ten (9 before 10, 99 before 100)', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const em = api.runtime.orm.em.fork();
    const [{ max }] = await em.execute<{ max: string | null }[]>('select max(id)::text as max from outbox_event');
    // The next power of ten above every id handed out so far, with room for three ids below it.
    let power = 10n;
    while (power - 4n <= BigInt(max ?? '0')) power *= 10n;
    await em.execute(`select setval('outbox_event_id_seq', ?)`, [String(power - 4n)]);
    for (let i = 0; i < 7; i++) {
      await em.execute(`insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data) values (?, ?, ?, 'command.refused', now(), '{}'::jsonb)`, [
        randomUUID(),
        floor.tenant.clientId,
        floor.wallId,
      ]);
    }
    const through = power + 3n;
    const rows = await recentlyRelayed(api.runtime.ormSql, { through: String(through) });
    const ids = rows.map((r) => BigInt(r.id));
    const ours = Array.from({ length: 7 }, (_, i) => power - 3n + BigInt(i));
    expect(ids.slice(-7)).toEqual(ours);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });
});
