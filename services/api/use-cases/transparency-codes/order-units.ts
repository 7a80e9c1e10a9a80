import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, OrderItem, Product } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';

/** How many units of one product an order holds, and where: on its own line (key null) or inside kits (key: kit SKU). */
export interface ProductUnits {
  sku: string;
  requiresCode: boolean;
  total: number;
  byParent: Map<string | null, number>;
}

const key = (sku: string) => sku.toUpperCase();

/**
 * Every product of an order with its unit count, kit lines expanded into their components
 * (docs/api.md §9). SKUs match in any letter case, as everywhere else; keys are upper-cased.
 * Throws 404 for an order the client does not have.
 */
export async function orderUnits(em: EntityManager, clientId: number, orderId: number, lock = false): Promise<Map<string, ProductUnits>> {
  const order = await em.findOne(Order, { clientId, id: orderId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!order) throw new AppError('not-found', `Your company has no order ${orderId}.`);
  const lines = await em.find(OrderItem, { clientId, orderId }, { orderBy: { id: 'asc' } });
  const lineProducts = await em.find(Product, { clientId, sku: { $in: lines.map((l) => l.sku) } });
  const kitOf = new Map(lineProducts.map((p) => [key(p.sku), p]));
  const componentSkus = lineProducts.flatMap((p) => p.kitComponents.map((c) => c.sku));
  // Kit components name SKUs as loaded, in any letter case.
  const components = componentSkus.length
    ? await em.createQueryBuilder(Product).where({ clientId }).andWhere('upper(sku) in (?)', [[...new Set(componentSkus.map(key))]]).getResult()
    : [];
  const products = new Map([...lineProducts, ...components].map((p) => [key(p.sku), p]));

  const units = new Map<string, ProductUnits>();
  const add = (sku: string, parent: string | null, qty: number) => {
    const product = products.get(key(sku));
    const entry = units.get(key(sku)) ?? { sku: product?.sku ?? sku, requiresCode: product?.requiresTransparencyCode ?? false, total: 0, byParent: new Map() };
    entry.total += qty;
    entry.byParent.set(parent, (entry.byParent.get(parent) ?? 0) + qty);
    units.set(key(sku), entry);
  };
  for (const line of lines) {
    add(line.sku, null, line.qty);
    for (const c of kitOf.get(key(line.sku))?.kitComponents ?? []) add(c.sku, line.sku, line.qty * c.qty);
  }
  return units;
}

export const unitsKey = key;
