import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, OrderItem } from '../../../../shared/db/entities';
import { notFound } from '../../../../shared/errors/app-error';
import type { AdminOrderDto } from './admin-data.dto';

/**
 * POST /admin/orders/{id}/ship: the order leaves the unshipped listings and no scan matches it any more.
 * Idempotent: shipping a shipped order answers it unchanged (its first shippedAt).
 * Slots are not touched here: an order still sitting in a slot stays there until the shipper's
 * release scan (POST /sort-boxes/{barcode}/release) empties the slot, as on the floor.
 */
export async function shipOrder(em: EntityManager, clientId: number, orderId: number): Promise<AdminOrderDto> {
  return em.transactional(async (tx) => {
    const order = await tx.findOne(Order, { clientId, id: orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!order) throw notFound(`Order ${orderId}`);
    const shipping = order.status !== 'Shipped';
    if (shipping) {
      order.status = 'Shipped';
      order.shippedAt = new Date();
      await tx.flush();
    }
    const lines = await tx.find(OrderItem, { clientId, orderId }, { orderBy: { id: 'asc' } });
    return toAdminOrderDto(order, lines);
  });
}

export function toAdminOrderDto(
  order: {
    id: number;
    warehouseId: number;
    orderDate: Date;
    priority: AdminOrderDto['priority'];
    isDropShip: boolean;
    status: AdminOrderDto['status'];
    shippedAt?: Date | null;
    shipTo: { name: string; street1: string; street2?: string | null; city: string; state?: string | null; postalCode: string; country: string };
  },
  lines: { sku: string; qty: number; confirmedQty: number; pendingQty: number; bins: string[] }[],
): AdminOrderDto {
  return {
    id: order.id,
    warehouseId: order.warehouseId,
    orderDate: new Date(order.orderDate).toISOString(),
    priority: order.priority,
    isDropShip: order.isDropShip,
    status: order.status,
    shippedAt: order.shippedAt ? new Date(order.shippedAt).toISOString() : null,
    shipTo: { ...order.shipTo, street2: order.shipTo.street2 ?? null, state: order.shipTo.state ?? null },
    items: lines.map((l) => ({ sku: l.sku, qty: l.qty, sortedQty: l.confirmedQty, pendingQty: l.pendingQty, bins: l.bins ?? [] })),
  };
}
