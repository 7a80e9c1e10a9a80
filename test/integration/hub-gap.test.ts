import { randomUUID } from 'node:crypto';
import type { CommandHandlers, CommandJobInfo } from '../../shared/commands/command-job';
import type { CommandPayloads } from '../../shared/commands/commands';
import { partitionOf } from '../../shared/commands/partitioning';
import { wallEventMessage } from '../../shared/events/channels';
import { followWall } from '../../services/api/events/event-stream';
import type { WallEventListener, WallEventsHub } from '../../services/api/events/wall-events.hub';
import { relayOnce, type RelayedEvent } from '../../workers/outbox/relay.use-case';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { useTestApi, waitFor } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * A hub whose Redis subscription was lost (Redis restarted) misses what the relay published meanwhile,
 * and once the subscription is back the relay's next messages may come before the hub is told it is
 * back (ioredis subscribes again before 'ready'; the hub learns it after a PING). Such a message follows
 * a gap: delivered at once, it moved the stream past the events of the gap, and the catch-up from the
 * outbox, which reads after the last event sent, never sent them. The stream must hold it until the
 * catch-up has sent the gap. The listener is driven in the order a reconnect produces; the events are
 * real ones (a sorter's commands, written and relayed in PostgreSQL).
 */

jest.setTimeout(90_000);

describe('a wall stream across a lost Redis subscription', () => {
  const api = useTestApi();
  let floor: Floor;
  let holder: CommandHandlers;
  let jobs = 0;

  const job = (): CommandJobInfo => ({ commandId: randomUUID(), partition: partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS), jobId: ++jobs });

  /** Relays every committed event (no relay process runs here): the events passed, in relay order. */
  const relayAll = async (): Promise<RelayedEvent[]> => {
    const passed: RelayedEvent[] = [];
    for (let i = 0; i < 50; i++) {
      const step = await relayOnce(api.runtime.ormSql);
      if (!step.locked) throw new Error('another relay holds the relay lock');
      passed.push(...step.events);
      const [{ n }] = await api.runtime.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from outbox_event where id > (select through from outbox_horizon)');
      if (Number(n) === 0) return passed;
    }
    throw new Error('the horizon did not pass every committed event');
  };

  it('messages that come after the resubscription but before the hub knows wait for the catch-up of the gap', async () => {
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 10 }] }] });
    const sorter = await floor.sorter(1);
    holder = sortingHandlers(new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS));
    const start: CommandPayloads['session.start'] = { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], picklistId: null };
    const session = await holder['session.start'](start, job());
    if (!session.ok) throw new Error(`connect refused: ${session.problem.code}`);
    await relayAll();

    // The stream, over the API's own hub; its listener is kept so that the test can tell it what a reconnect tells it.
    let listener: WallEventListener | undefined;
    const hub = {
      subscribe: (wallId: number, l: WallEventListener) => {
        listener = l;
        return api.deps.events.subscribe(wallId, l);
      },
    } as unknown as WallEventsHub;
    const follower = await followWall(api.runtime.orm.em.fork(), hub, floor.tenant.clientId, floor.wallId, undefined);
    const sent: string[] = [];
    follower.start(
      (_raw, event) => sent.push(event().id),
      () => sent.push('ended'),
    );
    try {
      // Redis goes away: the subscription is lost.
      listener!.lost();
      // Meanwhile the sorter scans: the events are written and relayed; their messages never come.
      for (let i = 0; i < 3; i++) {
        const scanned = await holder['item.scan'](
          { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], sessionToken: session.value.token, barcode: 'SKU-A', barcodeInputMethod: 'Scanned', idempotencyKey: null },
          job(),
        );
        expect(scanned.ok).toBe(true);
      }
      const gap = (await relayAll()).filter((e) => e.event.wallId === floor.wallId);
      expect(gap.length).toBeGreaterThanOrEqual(3);
      // The subscription is back: the relay's latest message arrives before the hub has told its listeners.
      const latest = gap[gap.length - 1]!;
      listener!.message(wallEventMessage(latest.outboxId, latest.event));
      expect(sent).toEqual([]);
      listener!.resumed();

      const expected = gap.map((e) => e.event.id);
      await waitFor(() => sent.length >= expected.length, { timeoutMs: 30_000, what: `the stream to send the ${expected.length} events of the gap (sent ${sent.length})` });
      // Every event of the gap once, in order, the latest last.
      expect(sent).toEqual(expected);
    } finally {
      await follower.stop();
    }
  });
});
