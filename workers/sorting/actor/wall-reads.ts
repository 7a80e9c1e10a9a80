import type { SqlRunner } from '../../../shared/db/named-sql';
import { wallNamed } from '../../../shared/db/wall-name.queries';
import {
  attachRead,
  employeeNames,
  itemById,
  picklistStatus,
  productByCode,
  scanCandidates,
  scanCandidatesAnyWarehouse,
  scanWhyNoOrder,
  serialHolder,
  sessionByToken,
  warehouseExists,
} from '../queries/wall-reads.queries';
import { idempotencyRecord } from '../queries/wall-write.queries';
import type { SerialHolder } from '../../../machines/refusals';
import type { LineFigures } from './wall-changes';
import { itemFromJson, orderFromJson, sessionFromJson, slotFromJson } from './wall-rows';
import type { IdempotentAnswer, ItemRow, OrderRow, ProductRef, SessionRow, SlotRow, WallState } from './wall-state';

/** A candidate of the scan's read: the line with the figures it was read with, and its order. */
export interface Candidate {
  line: LineFigures & { id: number };
  order: OrderRow;
}

/**
 * The reads a command may still make (docs/architecture.md "The wall actor"), each for data from
 * outside the wall: a product not in the wall's barcode cache, the scan's candidates when no order of
 * the wall needs the product, a finished item, an ended session, a picklist's status, the words of a
 * refusal, what an attachment or a wall edit must check against the client's other walls.
 */
export class WallReads {
  constructor(
    private readonly db: SqlRunner,
    private readonly state: WallState,
  ) {}

  private get clientId(): number {
    return this.state.wall.clientId;
  }

  /** The product a barcode names (upper-cased code), through the wall's cache. */
  async product(code: string): Promise<ProductRef | null> {
    const cached = this.state.product(code);
    if (cached !== undefined) return cached;
    const [row] = await productByCode(this.db, { clientId: this.clientId, code });
    const product = row ? { productId: row.product_id, sku: row.sku, requiresSerial: row.requires_serial } : null;
    this.state.rememberProduct(code, product);
    return product;
  }

  async candidates(sku: string, picklistId: number | null): Promise<Candidate[]> {
    const warehouseId = this.state.wall.warehouseId;
    const rows =
      warehouseId === null
        ? await scanCandidatesAnyWarehouse(this.db, { clientId: this.clientId, sku, picklistId })
        : await scanCandidates(this.db, { clientId: this.clientId, sku, picklistId, warehouseId });
    return rows.map((r) => ({
      line: { id: r.order_item_id, qty: r.qty, confirmedQty: r.confirmed_qty, pendingQty: r.pending_qty },
      order: orderFromJson(r.order),
    }));
  }

  async whyNoOrder(sku: string, picklistId: number | null) {
    const [why] = await scanWhyNoOrder(this.db, { clientId: this.clientId, sku, warehouseId: this.state.wall.warehouseId, picklistId });
    return why;
  }

  /** An item the wall does not hold, with its slot (null once detached); null: no such item on this wall. */
  async item(itemId: number): Promise<{ item: ItemRow; slot: SlotRow | null } | null> {
    const [row] = await itemById(this.db, { clientId: this.clientId, wallId: this.state.wall.id, itemId });
    return row ? { item: itemFromJson(row.item), slot: row.slot ? slotFromJson(row.slot) : null } : null;
  }

  /** The unit a product's serial number was confirmed with, on any wall of the client; null: not sorted yet. */
  async serialHolder(productId: number, serial: string): Promise<SerialHolder | null> {
    const [row] = await serialHolder(this.db, { clientId: this.clientId, productId, serial });
    return row
      ? { itemId: row.item_id, orderId: row.order_id, wallId: row.wall_id, wallName: row.wall_name, crc: row.crc, position: row.position }
      : null;
  }

  /** A session token of this wall that is not connected: the ended session, or null (unknown here). */
  async endedSession(token: string): Promise<SessionRow | null> {
    const [row] = await sessionByToken(this.db, { clientId: this.clientId, wallId: this.state.wall.id, token });
    return row ? sessionFromJson(row) : null;
  }

  async picklistStatus(picklistId: number): Promise<string | null> {
    const [row] = await picklistStatus(this.db, { clientId: this.clientId, picklistId });
    return row?.status ?? null;
  }

  async employeeNames(ids: number[]): Promise<Map<number, string>> {
    const rows = await employeeNames(this.db, { ids });
    return new Map(rows.map((r) => [r.id, `${r.first_name} ${r.last_name}`]));
  }

  /** Another wall of the client with this name, in any letter case. */
  async wallNamed(name: string): Promise<{ id: number; name: string } | null> {
    const [row] = await wallNamed(this.db, { clientId: this.clientId, name, wallId: this.state.wall.id });
    return row ?? null;
  }

  async warehouseExists(warehouseId: number): Promise<boolean> {
    return (await warehouseExists(this.db, { clientId: this.clientId, warehouseId })).length > 0;
  }

  async attach(serials: string[], crcs: string[], fresh: number) {
    const [row] = await attachRead(this.db, { clientId: this.clientId, serials, crcs, fresh });
    return { bySerial: row.by_serial, byCrc: row.by_crc, ids: row.ids ?? [] };
  }

  /** The first answer under a sorter's key when the wall's memory does not hold it. */
  async idempotency(key: string): Promise<IdempotentAnswer | null> {
    const [row] = await idempotencyRecord(this.db, { clientId: this.clientId, key });
    return row ? { operation: row.operation, requestHash: row.request_hash, body: row.body } : null;
  }
}
