import { query } from '../../../../shared/db/named-sql';

/** The order's codes of one product, its SKU compared upper-cased as units are counted (unitsKey). */
export const deleteProductCodesOfOrder = query<{ clientId: number; orderId: number; skuKey: string }>('transparency-codes-delete-product', `
delete from transparency_code where client_id = :clientId::int and order_id = :orderId::int and upper(product_sku) = :skuKey::text`);
