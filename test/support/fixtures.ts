import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Order,
  OrderItem,
  Picklist,
  PicklistOrder,
  Product,
  PRODUCT_CODE_KINDS,
  ProductCode,
  SortBox,
  Wall,
  Warehouse,
  type ChannelPrice,
  type IOrder,
  type IOrderItem,
  type IPicklist,
  type IProduct,
  type ISortBox,
  type IWall,
  type IWarehouse,
  type KitComponent,
  type OrderStatus,
  type PicklistStatus,
  type ShipTo,
  type SlotStatus,
  type WallWorkflow,
} from '../../shared/db/entities';
import type { FlowDirection } from '../../shared/domain/display-layout';
import { crc32Hex } from '../../shared/domain/crc';
import { priorityRank, type OrderPriority } from '../../shared/domain/priority';

/*
 * Test data written straight into PostgreSQL with MikroORM, for one tenant (clientId), so that a
 * test of one endpoint does not depend on the admin loaders or the scan workflow working.
 * Every helper flushes before returning the created rows. Pass a fresh fork: `api.runtime.orm.em.fork()`.
 * Client-supplied ids (warehouses, orders, picklists) are unique per client, so small integers are fine.
 */

export const SAMPLE_SHIP_TO: ShipTo = {
  name: 'Jane Doe',
  street1: '1 Main St',
  street2: null,
  city: 'Springfield',
  state: 'IL',
  postalCode: '62701',
  country: 'US',
};

let sequence = 0;
const next = () => ++sequence;

export async function addWarehouse(em: EntityManager, clientId: number, input: { id?: number; name?: string; address?: string | null; latitude?: number | null; longitude?: number | null; timeZone?: string | null } = {}): Promise<IWarehouse> {
  const id = input.id ?? next();
  const warehouse = em.create(Warehouse, {
    clientId,
    id,
    name: input.name ?? `Warehouse ${id}`,
    address: input.address ?? null,
    latitude: input.latitude ?? null,
    longitude: input.longitude ?? null,
    timeZone: input.timeZone ?? null,
  });
  await em.flush();
  return warehouse;
}

export interface ProductInput {
  sku: string;
  title?: string;
  upc?: string | null;
  aliases?: string[];
  shadowSkus?: string[];
  requiresTransparencyCode?: boolean;
  kitComponents?: KitComponent[];
  sitePrice?: number | null;
  stopLossPrice?: number | null;
  channelPrices?: ChannelPrice[];
}

/** Inserts products and their product_code rows (upper-cased; kind 1 sku, 2 upc, 3 shadow sku, 4 alias). */
export async function addProducts(em: EntityManager, clientId: number, inputs: ProductInput[]): Promise<IProduct[]> {
  const products = inputs.map((p) =>
    em.create(Product, {
      clientId,
      sku: p.sku,
      title: p.title ?? `Product ${p.sku}`,
      upc: p.upc ?? null,
      aliases: p.aliases ?? [],
      shadowSkus: p.shadowSkus ?? [],
      requiresTransparencyCode: p.requiresTransparencyCode ?? false,
      kitComponents: p.kitComponents ?? [],
      sitePrice: p.sitePrice ?? null,
      stopLossPrice: p.stopLossPrice ?? null,
      channelPrices: p.channelPrices ?? [],
      updatedAt: new Date(),
    }),
  );
  await em.flush();
  for (const product of products) {
    const codes: [string, number][] = [
      [product.sku, PRODUCT_CODE_KINDS.sku],
      ...(product.upc ? [[product.upc, PRODUCT_CODE_KINDS.upc] as [string, number]] : []),
      ...product.shadowSkus.map((c): [string, number] => [c, PRODUCT_CODE_KINDS.shadowSku]),
      ...product.aliases.map((c): [string, number] => [c, PRODUCT_CODE_KINDS.alias]),
    ];
    // (code, kind) is part of the key: 'x' and 'X' as two aliases are one row.
    const seen = new Set<string>();
    for (const [raw, kind] of codes) {
      const code = raw.toUpperCase();
      if (seen.has(`${kind}:${code}`)) continue;
      seen.add(`${kind}:${code}`);
      em.create(ProductCode, { clientId, code, kind, productId: product.id });
    }
  }
  await em.flush();
  return products;
}

export interface OrderItemInput {
  sku: string;
  qty: number;
  bins?: string[];
  /** Units already confirmed into a slot (as if sorted). */
  confirmedQty?: number;
  /** Units scanned but not yet confirmed. */
  pendingQty?: number;
}

export interface OrderInput {
  id: number;
  warehouseId: number;
  orderDate?: Date;
  priority?: OrderPriority;
  isDropShip?: boolean;
  status?: OrderStatus;
  shipTo?: ShipTo;
  items: OrderItemInput[];
}

export interface CreatedOrder {
  order: IOrder;
  items: IOrderItem[];
}

/** Inserts orders with their lines; orderDate defaults to now, priority to Normal, status to Unshipped. */
export async function addOrders(em: EntityManager, clientId: number, inputs: OrderInput[]): Promise<CreatedOrder[]> {
  const now = new Date();
  const created = inputs.map((o) => {
    const priority = o.priority ?? 'Normal';
    const status = o.status ?? 'Unshipped';
    const order = em.create(Order, {
      clientId,
      id: o.id,
      warehouseId: o.warehouseId,
      orderDate: o.orderDate ?? now,
      priority,
      priorityRank: priorityRank(priority),
      isDropShip: o.isDropShip ?? false,
      status,
      shipTo: o.shipTo ?? SAMPLE_SHIP_TO,
      shippedAt: status === 'Shipped' ? now : null,
      createdAt: now,
      updatedAt: now,
    });
    return { order, inputs: o.items };
  });
  // Orders first: order_item references them and MikroORM knows no relation between the two.
  await em.flush();
  const result = created.map(({ order, inputs: lines }) => ({
    order,
    items: lines.map((line) =>
      em.create(OrderItem, {
        clientId,
        orderId: order.id,
        sku: line.sku,
        qty: line.qty,
        confirmedQty: line.confirmedQty ?? 0,
        pendingQty: line.pendingQty ?? 0,
        bins: line.bins ?? [],
      }),
    ),
  }));
  await em.flush();
  return result;
}

export async function addPicklist(em: EntityManager, clientId: number, input: { id: number; status?: PicklistStatus; orderIds?: number[] }): Promise<IPicklist> {
  const picklist = em.create(Picklist, { clientId, id: input.id, status: input.status ?? 'Open', updatedAt: new Date() });
  await em.flush();
  for (const orderId of input.orderIds ?? []) {
    em.create(PicklistOrder, { clientId, picklistId: input.id, orderId });
  }
  await em.flush();
  return picklist;
}

export interface WallInput {
  name?: string;
  warehouseId?: number | null;
  workflow?: WallWorkflow;
  maxSorters?: number;
  isActive?: boolean;
  flowDirection?: FlowDirection;
  segmentRows?: number | null;
  segmentColumns?: number | null;
}

export async function addWall(em: EntityManager, clientId: number, input: WallInput = {}): Promise<IWall> {
  const now = new Date();
  const wall = em.create(Wall, {
    clientId,
    name: input.name ?? `Wall ${next()}`,
    isActive: input.isActive ?? true,
    maxSorters: input.maxSorters ?? 6,
    warehouseId: input.warehouseId ?? null,
    workflow: input.workflow ?? 'FreeSort',
    flowDirection: input.flowDirection ?? 'LeftToRight',
    segmentRows: input.segmentRows ?? null,
    segmentColumns: input.segmentColumns ?? null,
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  return wall;
}

/**
 * Attaches n Empty slots to a wall, at the positions after the wall's last one (1..n on a new wall).
 * Serial numbers are `0xTEST<clientId>-<wallId>-<position>`, unique per client; crc = crc32Hex(serial).
 */
export async function addSlots(em: EntityManager, clientId: number, wallId: number, n: number): Promise<ISortBox[]> {
  const last = await em.findOne(SortBox, { wallId }, { orderBy: { position: 'desc' } });
  const start = (last?.position ?? 0) + 1;
  const now = new Date();
  const slots: ISortBox[] = [];
  for (let position = start; position < start + n; position++) {
    const serialNumber = `0xTEST${clientId}-${wallId}-${position}`;
    slots.push(
      em.create(SortBox, {
        clientId,
        wallId,
        serialNumber,
        crc: crc32Hex(serialNumber),
        position,
        status: 'Empty',
        orderId: null,
        assignedAt: null,
        createdAt: now,
      }),
    );
  }
  await em.flush();
  return slots;
}

/** Puts an order into a slot (status Sorting unless told), as a scan would have. */
export async function putOrderInSlot(em: EntityManager, slot: ISortBox, orderId: number, status: Exclude<SlotStatus, 'Empty'> = 'Sorting'): Promise<ISortBox> {
  const managed = await em.findOneOrFail(SortBox, { id: slot.id });
  managed.orderId = orderId;
  managed.status = status;
  managed.assignedAt = new Date();
  await em.flush();
  return managed;
}
