import { newOutboxEvent, type NewOutboxEvent } from '../../../shared/events/outbox-event';
import type { EventType } from '../../../shared/events/event-types';
import type { EventData } from '../../../shared/events/event-data';
import type { ItemRow, LineRow, OrderRow, SessionRow, SlotRow, WallRow, WallState } from './wall-state';

/** An order line's figures: what a change was decided with, and what it writes. */
export type LineFigures = Pick<LineRow, 'qty' | 'confirmedQty' | 'pendingQty'>;

/**
 * What a command decided (docs/architecture.md "One write per command"): the rows it changes (whole
 * rows, as they are after the command), the order lines with the figures they were decided on, the
 * orders that enter the wall's memory, and its events. A use-case fills it; the actor writes it with
 * the command's bookkeeping in one fenced statement and, once written, applies it to its memory.
 */
export class WallChanges {
  wall: WallRow | null = null;
  readonly slots = new Map<number, SlotRow>();
  readonly newSlots: SlotRow[] = [];
  readonly removedSlots: number[] = [];
  readonly sessions = new Map<number, SessionRow>();
  readonly newSessions: SessionRow[] = [];
  readonly items = new Map<number, ItemRow>();
  readonly newItems: ItemRow[] = [];
  /** Order lines: `before` is what the decision saw; the write holds only if the row still has it. */
  readonly lines = new Map<number, { before: LineFigures; after: LineRow }>();
  /** Orders a slot takes that the wall did not hold (from the scan's candidate read). */
  readonly orders: OrderRow[] = [];
  readonly events: NewOutboxEvent[] = [];
  /** A keyed scan's record: its answer under the sorter's key. */
  idempotency: { key: string; requestHash: string } | null = null;

  constructor(
    private readonly state: WallState,
    private readonly now: Date,
  ) {}

  /** Adds an outbox event (docs/api.md §8): written with the change or not at all; only known types, each with its data. */
  emit<T extends EventType>(type: T, data: EventData<T>): void {
    this.events.push(newOutboxEvent(this.state.wall.clientId, this.state.wall.id, type, data, this.now));
  }

  // ---- the rows as this command leaves them (its own changes first, then the wall's memory)

  slot(id: number): SlotRow | undefined {
    return this.slots.get(id) ?? this.newSlots.find((s) => s.id === id) ?? this.state.slots.get(id);
  }

  item(id: number): ItemRow | undefined {
    return this.items.get(id) ?? this.newItems.find((i) => i.id === id) ?? this.state.items.get(id);
  }

  /** A line as this command leaves it. */
  line(id: number): LineRow | undefined {
    return this.lines.get(id)?.after ?? this.state.line(id) ?? this.orders.flatMap((o) => o.lines).find((l) => l.id === id);
  }

  // ---- changes

  setWall(wall: WallRow): void {
    this.wall = wall;
  }

  setSlot(slot: SlotRow): void {
    if (this.newSlots.some((s) => s.id === slot.id)) throw new Error(`slot ${slot.id} is new in this command`);
    this.slots.set(slot.id, slot);
  }

  setSession(session: SessionRow): void {
    const fresh = this.newSessions.findIndex((s) => s.id === session.id);
    if (fresh >= 0) this.newSessions[fresh] = session;
    else this.sessions.set(session.id, session);
  }

  setItem(item: ItemRow): void {
    const fresh = this.newItems.findIndex((i) => i.id === item.id);
    if (fresh >= 0) this.newItems[fresh] = item;
    else this.items.set(item.id, item);
  }

  /** The line's new figures; `before` defaults to the line as the wall holds it. */
  setLine(after: LineRow, before?: LineFigures): void {
    const known = this.lines.get(after.id);
    const seen = known?.before ?? before ?? this.state.line(after.id);
    if (!seen) throw new Error(`order line ${after.id} is not held by wall ${this.state.wall.id}`);
    this.lines.set(after.id, { before: { qty: seen.qty, confirmedQty: seen.confirmedQty, pendingQty: seen.pendingQty }, after });
  }
}

/** Applies a written command to the wall's memory: the same rows the statement wrote, at the new version. */
export function applyChanges(state: WallState, changes: WallChanges, version: number): void {
  if (changes.wall) state.wall = changes.wall;
  state.wall = { ...state.wall, version };
  for (const order of changes.orders) state.putOrder({ ...order, lines: order.lines.map((l) => ({ ...l })) });
  for (const { after } of changes.lines.values()) {
    const held = state.line(after.id);
    if (held) Object.assign(held, after);
  }
  for (const s of [...changes.newSlots, ...changes.slots.values()]) state.slots.set(s.id, s);
  for (const id of changes.removedSlots) state.slots.delete(id);
  for (const s of [...changes.newSessions, ...changes.sessions.values()]) {
    if (s.status === 'Connected') state.sessions.set(s.id, s);
    else state.sessions.delete(s.id);
  }
  for (const i of [...changes.newItems, ...changes.items.values()]) {
    // Only pending items stay in memory; a confirmed one is counted into its slot's order.
    if (i.status === 'PendingConfirmation') state.items.set(i.id, i);
    else state.items.delete(i.id);
    if (i.status === 'Confirmed' && i.sortBoxId !== null && state.slots.get(i.sortBoxId)?.orderId === i.orderId) state.addConfirmed(i.sortBoxId, i.orderId);
  }
  state.prune();
}
