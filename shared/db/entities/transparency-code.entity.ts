import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A marketplace transparency code recorded for one unit of a product (by SKU) in an order. */
export const TransparencyCode = defineEntity({
  name: 'TransparencyCode',
  tableName: 'transparency_code',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    orderId: p.integer(),
    productSku: p.text(),
    /** The kit in the order this unit ships in, when the product is a kit component. */
    kitParentSku: p.text().nullable(),
    code: p.text(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    createdBy: p.integer().nullable(),
  }),
});
export type ITransparencyCode = InferEntity<typeof TransparencyCode>;
