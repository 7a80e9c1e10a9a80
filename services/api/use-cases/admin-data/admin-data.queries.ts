import { query } from '../../../../shared/db/named-sql';
import { PRODUCT_CODE_KINDS } from '../../../../shared/db/entities/product.entity';
import type { ChannelPrice, KitComponent } from '../../../../shared/db/entities';

/*
 * The bulk loads of the client's master data (docs/api.md §3) and the product listing. A row set travels
 * as ONE jsonb parameter unpacked with jsonb_to_recordset, and a list of ids as one JSON array, so a
 * 10,000-row load is a handful of statements, not 10,000. Every statement of a load runs on its
 * transaction (emTransactionSql): all or nothing.
 */

/** `(xmax = 0)`: the row was inserted, not updated, by this statement. */
type Written = { inserted: boolean };

// ---- warehouses -------------------------------------------------------------------------------

export const upsertWarehouseRows = query<{ clientId: number; rows: string }, Written>('admin-warehouses-upsert', `
insert into warehouse (client_id, id, name, address, latitude, longitude, time_zone)
select :clientId::int, x.id, x.name, x.address, x.latitude, x.longitude, x.time_zone
  from jsonb_to_recordset(:rows::jsonb) as x(id int, name text, address text, latitude double precision, longitude double precision, time_zone text)
on conflict (client_id, id) do update
   set name = excluded.name, address = excluded.address, latitude = excluded.latitude, longitude = excluded.longitude, time_zone = excluded.time_zone
returning (xmax = 0) as inserted`);

/** The client's warehouses among the ids. */
export const knownWarehouses = query<{ clientId: number; ids: string }, { id: number }>('admin-warehouses-known', `
select id from warehouse where client_id = :clientId::int and id in (select value::int from jsonb_array_elements_text(:ids::jsonb))`);

// ---- products ---------------------------------------------------------------------------------

/** The stored products whose upper-cased SKU is one of :codes, with their own spelling. */
export const productSkusByCode = query<{ clientId: number; codes: string }, { code: string; sku: string }>('admin-product-skus-by-code', `
select pc.code, p.sku from product_code pc join product p on p.id = pc.product_id
 where pc.client_id = :clientId::int and pc.kind = ${PRODUCT_CODE_KINDS.sku}
   and pc.code in (select value from jsonb_array_elements_text(:codes::jsonb))`);

export const upsertProductRows = query<{ clientId: number; rows: string }, { id: number; sku: string } & Written>('admin-products-upsert', `
insert into product (client_id, sku, title, upc, aliases, shadow_skus, requires_transparency_code, requires_serial, kit_components,
                     site_price, stop_loss_price, channel_prices, updated_at)
select :clientId::int, x.sku, x.title, x.upc, x.aliases, x.shadow_skus, x.requires_transparency_code, x.requires_serial, x.kit_components,
       x.site_price, x.stop_loss_price, x.channel_prices, now()
  from jsonb_to_recordset(:rows::jsonb) as x(sku text, title text, upc text, aliases text[], shadow_skus text[],
       requires_transparency_code boolean, requires_serial boolean, kit_components jsonb, site_price numeric, stop_loss_price numeric, channel_prices jsonb)
on conflict (client_id, sku) do update set
  title = excluded.title, upc = excluded.upc, aliases = excluded.aliases, shadow_skus = excluded.shadow_skus,
  requires_transparency_code = excluded.requires_transparency_code, requires_serial = excluded.requires_serial, kit_components = excluded.kit_components,
  site_price = excluded.site_price, stop_loss_price = excluded.stop_loss_price,
  channel_prices = excluded.channel_prices, updated_at = now()
returning id, sku, (xmax = 0) as inserted`);

export const deleteProductCodes = query<{ clientId: number; productIds: string }>('admin-product-codes-delete', `
delete from product_code where client_id = :clientId::int
   and product_id in (select value::int from jsonb_array_elements_text(:productIds::jsonb))`);

export const insertProductCodes = query<{ clientId: number; rows: string }>('admin-product-codes-insert', `
insert into product_code (client_id, code, kind, product_id)
select :clientId::int, x.code, x.kind, x.product_id from jsonb_to_recordset(:rows::jsonb) as x(code text, kind smallint, product_id int)`);

/** A row of productPage. */
export interface ProductPageRow {
  id: number;
  sku: string;
  title: string;
  upc: string | null;
  aliases: string[];
  shadow_skus: string[];
  requires_transparency_code: boolean;
  requires_serial: boolean;
  kit_components: KitComponent[];
  site_price: string | number | null;
  stop_loss_price: string | number | null;
  channel_prices: ChannelPrice[];
}

/**
 * GET /admin/products: up to :limit products after id :after, by id; :search (a LIKE pattern or null)
 * matches the title case-insensitively, or any of the product's upper-cased codes.
 */
export const productPage = query<{ clientId: number; after: number; search: string | null; limit: number }, ProductPageRow>('admin-products-page', `
select p.id, p.sku, p.title, p.upc, p.aliases, p.shadow_skus, p.requires_transparency_code, p.requires_serial, p.kit_components,
       p.site_price, p.stop_loss_price, p.channel_prices
  from product p
 where p.client_id = :clientId::int and p.id > :after::int
   and (:search::text is null
        or p.title ilike :search::text
        or exists (select 1 from product_code pc
                    where pc.client_id = p.client_id and pc.product_id = p.id and pc.code like upper(:search::text)))
 order by p.id
 limit :limit::int`);

// ---- picklists --------------------------------------------------------------------------------

/** The client's orders among the ids. */
export const knownOrders = query<{ clientId: number; ids: string }, { id: number }>('admin-orders-known', `
select id from orders where client_id = :clientId::int and id in (select value::int from jsonb_array_elements_text(:ids::jsonb))`);

export const upsertPicklistRows = query<{ clientId: number; rows: string }, Written>('admin-picklists-upsert', `
insert into picklist (client_id, id, status, updated_at)
select :clientId::int, x.id, x.status, now() from jsonb_to_recordset(:rows::jsonb) as x(id int, status text)
on conflict (client_id, id) do update set status = excluded.status, updated_at = now()
returning (xmax = 0) as inserted`);

export const deletePicklistOrders = query<{ clientId: number; picklistIds: string }>('admin-picklist-orders-delete', `
delete from picklist_order where client_id = :clientId::int and picklist_id in (select value::int from jsonb_array_elements_text(:picklistIds::jsonb))`);

export const insertPicklistOrders = query<{ clientId: number; rows: string }>('admin-picklist-orders-insert', `
insert into picklist_order (client_id, picklist_id, order_id)
select :clientId::int, x.picklist_id, x.order_id from jsonb_to_recordset(:rows::jsonb) as x(picklist_id int, order_id int)`);

// ---- orders -----------------------------------------------------------------------------------

/** The stored orders among the ids, locked (orders first, then their lines: the lock order of every writer). */
export const lockOrders = query<{ clientId: number; ids: string }, { id: number; status: string; warehouse_id: number }>('admin-orders-lock', `
select id, status, warehouse_id from orders
 where client_id = :clientId::int and id in (select value::int from jsonb_array_elements_text(:ids::jsonb))
 order by id for update`);

/** A stored order line as an upload compares it. */
export interface StoredLine {
  id: number;
  order_id: number;
  sku: string;
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
}

/** The lines of the orders, locked, so a concurrent scan waits instead of reserving a unit on a line being rewritten. */
export const lockOrderLines = query<{ clientId: number; orderIds: string }, StoredLine>('admin-order-lines-lock', `
select id, order_id, sku, qty, confirmed_qty, pending_qty from order_item
 where client_id = :clientId::int and order_id in (select value::int from jsonb_array_elements_text(:orderIds::jsonb))
 order by id for update`);

/** The orders among the ids that sit in a slot. */
export const slottedOrders = query<{ clientId: number; orderIds: string }, { order_id: number }>('admin-orders-slotted', `
select order_id from sort_box where client_id = :clientId::int and order_id in (select value::int from jsonb_array_elements_text(:orderIds::jsonb))`);

/** How many scans each line has had (cancelled ones too). */
export const lineScanCounts = query<{ clientId: number; lineIds: string }, { order_item_id: number; scans: number }>('admin-order-line-scans', `
select order_item_id, count(*)::int as scans from sort_box_item
 where client_id = :clientId::int and order_item_id in (select value::int from jsonb_array_elements_text(:lineIds::jsonb))
 group by order_item_id`);

export const upsertOrderRows = query<{ clientId: number; rows: string }, Written>('admin-orders-upsert', `
insert into orders (client_id, id, warehouse_id, order_date, priority, priority_rank, is_drop_ship, ship_to, created_at, updated_at)
select :clientId::int, x.id, x.warehouse_id, x.order_date, x.priority, x.priority_rank, x.is_drop_ship, x.ship_to, now(), now()
  from jsonb_to_recordset(:rows::jsonb) as x(id int, warehouse_id int, order_date timestamptz, priority text,
       priority_rank smallint, is_drop_ship boolean, ship_to jsonb)
on conflict (client_id, id) do update set
  warehouse_id = excluded.warehouse_id, order_date = excluded.order_date, priority = excluded.priority,
  priority_rank = excluded.priority_rank, is_drop_ship = excluded.is_drop_ship, ship_to = excluded.ship_to,
  updated_at = now()
returning (xmax = 0) as inserted`);

export const deleteOrderLines = query<{ clientId: number; lineIds: string }>('admin-order-lines-delete', `
delete from order_item where client_id = :clientId::int and id in (select value::int from jsonb_array_elements_text(:lineIds::jsonb))`);

export const updateOrderLines = query<{ clientId: number; rows: string }>('admin-order-lines-update', `
update order_item oi set qty = x.qty, bins = x.bins
  from jsonb_to_recordset(:rows::jsonb) as x(id int, qty int, bins text[])
 where oi.id = x.id and oi.client_id = :clientId::int`);

/**
 * New lines; each carries its order's warehouse, priority rank and date: the scan walks the open lines
 * of a warehouse and sku best order first (order_item_scan_candidates_idx).
 */
export const insertOrderLines = query<{ clientId: number; rows: string }>('admin-order-lines-insert', `
insert into order_item (client_id, order_id, warehouse_id, priority_rank, order_date, sku, qty, confirmed_qty, pending_qty, bins)
select :clientId::int, x.order_id, x.warehouse_id, x.priority_rank, x.order_date, x.sku, x.qty, 0, 0, x.bins
  from jsonb_to_recordset(:rows::jsonb) as x(order_id int, warehouse_id int, priority_rank smallint, order_date timestamptz, sku text, qty int, bins text[])`);
