import { BUSY_WALLS, relayStepWait, wallsOf } from '../../workers/outbox/outbox.worker';
import type { RelayedEvent } from '../../workers/outbox/relay.use-case';

/* The relay's busy interval follows the walls of a step's events (docs/architecture.md "Relay order"). */
describe("the relay's busy floor", () => {
  const ev = (outboxId: number, wallId: number | null): RelayedEvent => ({
    outboxId: String(outboxId),
    event: { id: `e${outboxId}`, type: 'sort-box-item.created', occurredAt: new Date(0).toISOString(), clientId: 1, wallId, data: {} },
  });

  it('counts the walls of the events, up to BUSY_WALLS', () => {
    expect(BUSY_WALLS).toBe(3);
    expect(wallsOf([])).toBe(0);
    // One sorter's commands: many events, one wall (and the client's events without a wall): never busy.
    expect(wallsOf(Array.from({ length: 40 }, (_, i) => ev(i, 7)))).toBe(1);
    expect(wallsOf([ev(1, 7), ev(2, null), ev(3, 7)])).toBe(2);
    expect(wallsOf([ev(1, 7), ev(2, 8), ev(3, 9), ev(4, 10)])).toBe(BUSY_WALLS);
  });

  it('waits OUTBOX_RELAY_DELAY_MS after a wake-up, the rest of the interval after a step, nothing with a backlog', () => {
    // A commit after a quiet moment: its answer goes first.
    expect(relayStepWait(true, 60_000, 10, 5)).toBe(5);
    // Woken 2 ms after the last step began: the interval's rest, longer than the delay.
    expect(relayStepWait(true, 2, 10, 5)).toBe(8);
    expect(relayStepWait(true, 7, 10, 5)).toBe(5);
    expect(relayStepWait(true, 7, 30, 5)).toBe(23);
    // A full batch: on at once once the interval has passed, never the delay.
    expect(relayStepWait(false, 60_000, 10, 5)).toBe(0);
    expect(relayStepWait(false, 4, 10, 5)).toBe(6);
    // OUTBOX_RELAY_DELAY_MS=0: as before, a lone commit at once.
    expect(relayStepWait(true, 60_000, 10, 0)).toBe(0);
  });
});
