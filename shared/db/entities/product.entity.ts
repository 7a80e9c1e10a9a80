import { defineEntity, type InferEntity } from '@mikro-orm/core';

export interface KitComponent {
  sku: string;
  qty: number;
}
export interface ChannelPrice {
  channelId: number;
  price: number;
  useDefaultSitePrice: boolean;
}

export const Product = defineEntity({
  name: 'Product',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'product',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    sku: p.text(),
    title: p.text(),
    upc: p.text().nullable(),
    aliases: p.array().columnType('text[]').default('{}'),
    shadowSkus: p.array().columnType('text[]').default('{}'),
    requiresTransparencyCode: p.boolean().default(false),
    /** Each unit's serial is scanned at its confirm (docs/api.md "Serial numbers"). */
    requiresSerial: p.boolean().default(false),
    kitComponents: p.json<KitComponent[]>().default('[]'),
    sitePrice: p.decimal('number').precision(14).scale(4).nullable(),
    stopLossPrice: p.decimal('number').precision(14).scale(4).nullable(),
    channelPrices: p.json<ChannelPrice[]>().default('[]'),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type IProduct = InferEntity<typeof Product>;

/** The kinds of product code, in the order a scanned barcode is resolved (docs/api.md §7). */
export const PRODUCT_CODE_KINDS = { sku: 1, upc: 2, shadowSku: 3, alias: 4 } as const;

/** Every code a product answers to, upper-cased: the scan resolves a barcode with one index lookup. */
export const ProductCode = defineEntity({
  name: 'ProductCode',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'product_code',
  primaryKeys: ['clientId', 'code', 'kind', 'productId'],
  properties: (p) => ({
    clientId: p.integer().primary(),
    code: p.text().primary(),
    kind: p.smallint().primary(),
    productId: p.integer().primary(),
  }),
});
export type IProductCode = InferEntity<typeof ProductCode>;
