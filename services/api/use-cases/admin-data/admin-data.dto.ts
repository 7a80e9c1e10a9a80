import { z } from 'zod';
import { ORDER_PRIORITIES } from '../../../../shared/domain/priority';
import { ORDER_STATUSES } from '../../../../shared/db/entities/order.entity';
import { PICKLIST_STATUSES } from '../../../../shared/db/entities/picklist.entity';
import { isoDateOrDateTime } from '../../http/validation';
import { canonicalTimeZone, isIanaTimeZone } from '../../../../shared/domain/time-zone';
import { MAX_BULK_ROWS } from './bulk';

/** Request and answer shapes of the bulk loads (docs/api.md §3). PUT replaces each row as a whole. */

const clientId = (what: string) => z.number().int().min(1).max(2147483647).describe(`${what} (your own system's integer id, unique within your company)`);
const text = (max: number) => z.string().trim().min(1).max(max);
const optionalText = (max: number) => z.string().trim().max(max).nullish().transform((v) => (v ? v : null));
const code = z.string().trim().min(1).max(100);
const money = z.number().min(0).max(9_999_999_999).nullish().transform((v) => v ?? null);

const bulk = <T extends z.ZodType>(row: T, what: string) =>
  z.array(row).max(MAX_BULK_ROWS, `at most ${MAX_BULK_ROWS} ${what} per call; send more in several calls`);

// ---- warehouses -------------------------------------------------------------------------------

export const warehouseRow = z.object({
  id: clientId('Warehouse id'),
  name: text(200).describe('1..200 characters'),
  address: optionalText(500).describe('Postal address, up to 500 characters'),
  latitude: z.number().min(-90).max(90).nullish().transform((v) => v ?? null).describe('Degrees, -90..90; locates the walls of the warehouse'),
  longitude: z.number().min(-180).max(180).nullish().transform((v) => v ?? null).describe('Degrees, -180..180'),
  timeZone: z
    .string()
    .max(64)
    .refine(isIanaTimeZone, 'must be an IANA time zone name, e.g. America/Chicago')
    .nullish()
    .transform((v) => (v ? canonicalTimeZone(v) : null))
    .describe('IANA time zone name, e.g. Europe/Berlin. The insights of this warehouse and its walls count days and hours in it; without one, in UTC.'),
});
export type WarehouseRow = z.infer<typeof warehouseRow>;
export const warehousesBody = bulk(warehouseRow, 'warehouses');

export const warehouseDto = z.object({
  id: z.number().int(),
  name: z.string(),
  address: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  timeZone: z.string().nullable(),
});
export type WarehouseDto = z.infer<typeof warehouseDto>;

// ---- products ---------------------------------------------------------------------------------

const kitComponent = z.object({ sku: code, qty: z.number().int().min(1).max(100000) });
const channelPrice = z.object({
  channelId: z.number().int().min(0).max(2147483647),
  price: z.number().min(0).max(9_999_999_999),
  useDefaultSitePrice: z.boolean(),
});

export const productRow = z.object({
  sku: code.describe('Unique per company, case-insensitively (scans match any case)'),
  title: text(500).describe('Product name, 1..500 characters'),
  upc: z.string().trim().max(100).nullish().transform((v) => (v ? v : null)).describe('UPC barcode; a scan resolves it after the SKU'),
  aliases: z.array(code).max(100).default([]).describe('Other barcodes of the product; a scan resolves them last'),
  shadowSkus: z.array(code).max(100).default([]).describe('Further SKUs of the same product; a scan resolves them after the UPC'),
  requiresTransparencyCode: z.boolean().default(false).describe('A marketplace transparency code is needed per unit'),
  requiresSerial: z.boolean().default(false).describe("Each unit's serial number is scanned when it is confirmed, and unique per SKU"),
  kitComponents: z.array(kitComponent).max(500).default([]).describe('The parts of a kit, each SKU once; they need not be loaded yet'),
  sitePrice: money.describe('Price on the own site (catalog lookup SitePrice)'),
  stopLossPrice: money.describe('Lowest acceptable price (catalog lookup StopLossPrice)'),
  channelPrices: z.array(channelPrice).max(500).default([]).describe('Prices per sales channel, each channel once'),
});
export type ProductRow = z.infer<typeof productRow>;
export const productsBody = bulk(productRow, 'products');

export const productDto = z.object({
  id: z.number().int().describe("The service's own product id (the catalog's productID)"),
  sku: z.string(),
  title: z.string(),
  upc: z.string().nullable(),
  aliases: z.array(z.string()),
  shadowSkus: z.array(z.string()),
  requiresTransparencyCode: z.boolean(),
  requiresSerial: z.boolean(),
  kitComponents: z.array(z.object({ sku: z.string(), qty: z.number().int() })),
  sitePrice: z.number().nullable(),
  stopLossPrice: z.number().nullable(),
  channelPrices: z.array(z.object({ channelId: z.number().int(), price: z.number(), useDefaultSitePrice: z.boolean() })),
});
export type ProductDto = z.infer<typeof productDto>;

// ---- orders -----------------------------------------------------------------------------------

const shipTo = z.object({
  name: text(200),
  street1: text(200),
  street2: optionalText(200),
  city: text(100),
  state: optionalText(100),
  postalCode: text(20),
  country: text(60),
});

const orderLine = z.object({
  sku: code.describe("A product's SKU (matched case-insensitively; stored as the product's own spelling)"),
  qty: z.number().int().min(1).max(1_000_000),
  bin: z.string().trim().min(1).max(100).optional().describe('Bin location the unit is picked from'),
  bins: z.array(z.string().trim().min(1).max(100)).max(50).optional().describe('Several bin locations (with or instead of bin)'),
});

export const orderRow = z.object({
  id: clientId('Order id'),
  warehouseId: clientId('Warehouse id, loaded before with PUT /admin/warehouses'),
  orderDate: isoDateOrDateTime.describe('ISO 8601 date-time (or a date, read as midnight UTC), between 0001-01-01 and 9999-12-31 UTC'),
  priority: z.enum(ORDER_PRIORITIES).default('Normal').describe('Higher priority orders take scanned units first'),
  isDropShip: z.boolean().default(false).describe('Drop-ship orders are never sorted on a wall'),
  shipTo: shipTo.describe('Where the order goes; printed on its license plate'),
  items: z.array(orderLine).min(1, 'an order needs at least one line').max(1000).describe('The order lines, each SKU once, 1..1000'),
});
export type OrderRow = z.infer<typeof orderRow>;
export const ordersBody = bulk(orderRow, 'orders');

export const adminOrderDto = z.object({
  id: z.number().int(),
  warehouseId: z.number().int(),
  orderDate: z.string(),
  priority: z.enum(ORDER_PRIORITIES),
  isDropShip: z.boolean(),
  status: z.enum(ORDER_STATUSES),
  shippedAt: z.string().nullable(),
  shipTo: z.object({
    name: z.string(),
    street1: z.string(),
    street2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable(),
    postalCode: z.string(),
    country: z.string(),
  }),
  items: z.array(
    z.object({
      sku: z.string(),
      qty: z.number().int(),
      sortedQty: z.number().int().describe('Units confirmed into a slot'),
      pendingQty: z.number().int().describe('Units scanned, awaiting confirmation'),
      bins: z.array(z.string()),
    }),
  ),
});
export type AdminOrderDto = z.infer<typeof adminOrderDto>;

// ---- picklists --------------------------------------------------------------------------------

export const picklistRow = z.object({
  id: clientId('Picklist id'),
  status: z.enum(PICKLIST_STATUSES).describe('Only Open picklists can be sorted'),
  orderIds: z.array(z.number().int().min(1).max(2147483647)).max(10_000).describe('Orders of the picklist; replaces its earlier list'),
});
export type PicklistRow = z.infer<typeof picklistRow>;
export const picklistsBody = bulk(picklistRow, 'picklists');

export const picklistDto = z.object({
  id: z.number().int(),
  status: z.enum(PICKLIST_STATUSES),
  orderIds: z.array(z.number().int()),
});
export type PicklistDto = z.infer<typeof picklistDto>;

// ---- answers ----------------------------------------------------------------------------------

export const bulkResultDto = <T extends z.ZodType>(item: T) =>
  z.object({
    upserted: z.number().int().describe('Rows written (created + updated)'),
    created: z.number().int(),
    updated: z.number().int(),
    items: z.array(item).describe('Every row as stored, in request order'),
  });
