import type { SqlRunner } from '../../shared/db/named-sql';
import type { WallEvent } from '../../shared/events/channels';
import { newOutboxEvent } from '../../shared/events/outbox-event';
import { EVENT_SCHEMAS } from '../../shared/events/event-schemas';
import { autoPrintCompletedOrders } from '../../workers/labels/auto-print.use-case';
import { prerenderCompletedSlots } from '../../workers/labels/prerender-label.use-case';

/*
 * The event types reach the handlers: a writer's data and a reader's fields are the schemas' types
 * (shared/events/event-schemas.ts), so a renamed field fails `npm run lint`. Each `@ts-expect-error`
 * below is a mistake the compiler must refuse (lint fails if it is accepted); the test bodies run
 * nothing of the database.
 */
describe('event types reach the writers and the handlers', () => {
  it("a writer's data is its type's", () => {
    const at = new Date(0);
    expect(newOutboxEvent(1, 2, 'sort-box.completed', { sortBox: sampleBox(), orderId: 7 }, at).data).toEqual({ sortBox: sampleBox(), orderId: 7 });
    // @ts-expect-error an order id is a number
    newOutboxEvent(1, 2, 'sort-box.completed', { sortBox: sampleBox(), orderId: '7' }, at);
    // @ts-expect-error a field renamed (orderId → order) is no longer the type's
    newOutboxEvent(1, 2, 'sort-box.completed', { sortBox: sampleBox(), order: 7 }, at);
    // @ts-expect-error wall.updated carries a Wall record, not anything
    newOutboxEvent(1, 2, 'wall.updated', { wall: 42, change: 'wall' }, at);
  });

  it('the labels and printing handlers take decoded events, not raw ones', () => {
    const raw: WallEvent[] = [];
    const tx = null as unknown as SqlRunner;
    // Type checks only: nothing is called.
    const calls = [
      // @ts-expect-error a raw event's data is unknown: the handler needs it decoded
      () => prerenderCompletedSlots(tx, raw, 1),
      // @ts-expect-error as above
      () => autoPrintCompletedOrders(tx, raw),
    ];
    expect(calls).toHaveLength(2);
  });

  it("wall.updated's wall is read by the Wall record's schema; an older event's partial record still decodes", () => {
    expect(EVENT_SCHEMAS['wall.updated'].safeParse({ wall: { id: 9, name: 'Jackson St' }, change: 'wall' }).success).toBe(true);
    expect(EVENT_SCHEMAS['wall.updated'].safeParse({ wall: { id: 9, name: 42 }, change: 'wall' }).success).toBe(false);
    expect(EVENT_SCHEMAS['wall.updated'].safeParse({ wall: null, change: 'wall' }).success).toBe(false);
  });
});

function sampleBox() {
  return { id: 1, wallId: 2, serialNumber: 'SN', crc: 'abc', position: 1, status: 'Available', orderId: null, assignedAt: null } as never;
}
