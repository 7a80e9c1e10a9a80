import type { ISortBox, ISortBoxItem, ISorterSession, IWall, OrderStatus } from '../../../shared/db/entities';
import type { OrderPriority } from '../../../shared/domain/priority';
import { toWallDto, type WallDto } from '../../../shared/dto/wall.dto';
import type { CommandOutcome } from '../../../shared/commands/command-job';

/*
 * What a wall's actor holds in memory (docs/architecture.md "The wall actor"): the wall row and its
 * version, its slots, its connected sessions, the pending items of its slots and, per slot, how many
 * confirmed items the order it holds has there (a count, not the items: what a command needs of them,
 * whatever the units sorted), those orders with their lines and picklists, and a cache of barcodes. Loaded with one statement (queries/wall-load.queries.ts), bounded by the wall's own rows,
 * and changed only by the writes of its own commands (applyChanges) or reloaded when its version moved.
 */

export type WallRow = Pick<IWall, 'id' | 'clientId' | 'name' | 'isActive' | 'maxSorters' | 'workflow' | 'flowDirection' | 'createdAt'> & {
  warehouseId: number | null;
  segmentRows: number | null;
  segmentColumns: number | null;
  version: number;
};

export type SlotRow = Pick<ISortBox, 'id' | 'wallId' | 'serialNumber' | 'crc' | 'position' | 'status'> & { orderId: number | null; assignedAt: Date | null };

export type SessionRow = Pick<
  ISorterSession,
  'id' | 'token' | 'clientId' | 'wallId' | 'userId' | 'color' | 'status' | 'startedAt' | 'lastActivityAt' | 'expiresAt'
> & { picklistId: number | null; endedAt: Date | null; endReason: ISorterSession['endReason'] | null };

export type ItemRow = Pick<
  ISortBoxItem,
  | 'id'
  | 'wallId'
  | 'crc'
  | 'orderId'
  | 'orderItemId'
  | 'productId'
  | 'sku'
  | 'barcode'
  | 'barcodeInputMethod'
  | 'userId'
  | 'sessionId'
  | 'color'
  | 'units'
  | 'confirmedUnits'
  | 'status'
  | 'createdAt'
> & {
  sortBoxId: number | null;
  confirmedAt: Date | null;
  cancelledAt: Date | null;
  /** Whether its product required a serial when it was scanned: its confirm needs one (docs/api.md "Serial numbers"). */
  requiresSerial: boolean;
  serial: string | null;
};

export interface LineRow {
  id: number;
  orderId: number;
  sku: string;
  qty: number;
  confirmedQty: number;
  pendingQty: number;
}

export interface OrderRow {
  id: number;
  warehouseId: number;
  priority: OrderPriority;
  orderDate: Date;
  status: OrderStatus;
  isDropShip: boolean;
  lines: LineRow[];
  picklistIds: number[];
}

/** A barcode's product, as the scan resolves it (null: no product answers to the code). */
export interface ProductRef {
  productId: number;
  sku: string;
  requiresSerial: boolean;
}

/** A keyed scan's first answer, kept so a retry with the same key answers the same. */
export interface IdempotentAnswer {
  operation: string;
  requestHash: string;
  body: unknown;
}

/** Small bounded maps: the oldest entry goes first. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

const MAX_CODES = 5_000;
const MAX_KEYS = 2_000;
const MAX_OUTCOMES = 500;

export class WallState {
  readonly slots = new Map<number, SlotRow>();
  /** Connected sessions only. */
  readonly sessions = new Map<number, SessionRow>();
  /** Pending items of every slot (a finished item is read when a command names it). */
  readonly items = new Map<number, ItemRow>();
  /** Per slot: the confirmed items of the order it holds (a slot holding no order has none). */
  private readonly confirmedItems = new Map<number, { orderId: number; count: number }>();
  /** The orders the slots hold. */
  readonly orders = new Map<number, OrderRow>();
  private readonly linesById = new Map<number, LineRow>();
  private readonly products = new Map<string, ProductRef | null>();
  private readonly keys = new Map<string, IdempotentAnswer>();
  private readonly outcomes = new Map<string, CommandOutcome>();
  /** Ids taken from the sequences ahead of time, so a scan or a connect needs no read for them. */
  readonly itemIds: number[] = [];
  readonly sessionIds: number[] = [];

  constructor(public wall: WallRow) {}

  // ---- orders and lines

  putOrder(order: OrderRow): void {
    const old = this.orders.get(order.id);
    if (old) for (const l of old.lines) this.linesById.delete(l.id);
    this.orders.set(order.id, order);
    for (const l of order.lines) this.linesById.set(l.id, l);
  }

  line(id: number): LineRow | undefined {
    return this.linesById.get(id);
  }

  // ---- slots

  slotByCrc(crc: string): SlotRow | undefined {
    for (const s of this.slots.values()) if (s.crc === crc) return s;
    return undefined;
  }

  slotOfOrder(orderId: number): SlotRow | undefined {
    for (const s of this.slots.values()) if (s.orderId === orderId) return s;
    return undefined;
  }

  /** Slots by position (a gap where a slot was detached). */
  slotsByPosition(): SlotRow[] {
    return [...this.slots.values()].sort((a, b) => a.position - b.position || a.id - b.id);
  }

  /** Confirmed items of `orderId` in the slot (while the slot holds that order). */
  confirmedIn(slotId: number, orderId: number): number {
    const c = this.confirmedItems.get(slotId);
    return c && c.orderId === orderId ? c.count : 0;
  }

  /** Counts confirmed items into the slot's order (the load's counts, then each confirm written). */
  addConfirmed(slotId: number, orderId: number, count = 1): void {
    const c = this.confirmedItems.get(slotId);
    this.confirmedItems.set(slotId, { orderId, count: (c && c.orderId === orderId ? c.count : 0) + count });
  }

  pendingItems(filter: (i: ItemRow) => boolean = () => true): ItemRow[] {
    const out: ItemRow[] = [];
    for (const i of this.items.values()) if (i.status === 'PendingConfirmation' && filter(i)) out.push(i);
    return out.sort((a, b) => a.id - b.id);
  }

  // ---- sessions

  sessionByToken(token: string): SessionRow | undefined {
    for (const s of this.sessions.values()) if (s.token === token) return s;
    return undefined;
  }

  /** Connected sessions, oldest first. */
  connected(): SessionRow[] {
    return [...this.sessions.values()].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.id - b.id);
  }

  // ---- the Wall record

  wallDto(wall: WallRow = this.wall, counts = { slotCount: this.slots.size, connectedSorters: this.sessions.size }): WallDto {
    return toWallDto(wall, counts);
  }

  // ---- caches (never written to the database; dropped with the state when the version moves)

  product(code: string): ProductRef | null | undefined {
    return this.products.get(code);
  }

  rememberProduct(code: string, product: ProductRef | null): void {
    remember(this.products, code, product, MAX_CODES);
  }

  idempotent(key: string): IdempotentAnswer | undefined {
    return this.keys.get(key);
  }

  rememberKey(key: string, answer: IdempotentAnswer): void {
    remember(this.keys, key, answer, MAX_KEYS);
  }

  outcome(commandId: string): CommandOutcome | undefined {
    return this.outcomes.get(commandId);
  }

  rememberOutcome(commandId: string, outcome: CommandOutcome): void {
    remember(this.outcomes, commandId, outcome, MAX_OUTCOMES);
  }

  /**
   * Forgets what no slot holds any more: orders released or vacated with their confirmed counts, and
   * finished items. Bounded by the slots, their orders and the pending items, never by the units sorted.
   */
  prune(): void {
    const held = new Set<number>();
    for (const s of this.slots.values()) if (s.orderId !== null) held.add(s.orderId);
    for (const [id, o] of this.orders) {
      if (held.has(id)) continue;
      this.orders.delete(id);
      for (const l of o.lines) this.linesById.delete(l.id);
    }
    for (const [slotId, c] of this.confirmedItems) if (this.slots.get(slotId)?.orderId !== c.orderId) this.confirmedItems.delete(slotId);
    for (const [id, i] of this.items) if (i.status !== 'PendingConfirmation') this.items.delete(id);
  }
}
