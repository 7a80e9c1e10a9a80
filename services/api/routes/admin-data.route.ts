import { z } from 'zod';
import { BULK_BODY_LIMIT } from '../http/body';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import {
  adminOrderDto,
  bulkResultDto,
  ordersBody,
  picklistDto,
  picklistsBody,
  productDto,
  productsBody,
  warehouseDto,
  warehousesBody,
} from '../use-cases/admin-data/admin-data.dto';
import { MAX_BULK_ROWS } from '../use-cases/admin-data/bulk';
import { listProducts } from '../use-cases/admin-data/list-products.use-case';
import { shipOrder } from '../use-cases/admin-data/ship-order.use-case';
import { upsertOrders } from '../use-cases/admin-data/upsert-orders.use-case';
import { upsertPicklists } from '../use-cases/admin-data/upsert-picklists.use-case';
import { upsertProducts } from '../use-cases/admin-data/upsert-products.use-case';
import { upsertWarehouses } from '../use-cases/admin-data/upsert-warehouses.use-case';

const tags = ['Admin: data loading'];
const MAX_PRODUCT_PAGE = 500;
const bulkNote =
  `Up to ${MAX_BULK_ROWS} rows per call, written in one transaction: all or nothing. A refused batch answers ` +
  '400 validation-failed with one entry per problem in errors[] (path like `[2].warehouseId`) and changes nothing. ' +
  'PUT replaces each row as a whole: an optional field left out is cleared.';

export const adminDataRoutes: RouteDef[] = [
  defineRoute({
    method: 'put',
    path: '/admin/warehouses',
    operationId: 'UpsertWarehouses',
    summary: 'Create or replace warehouses by id',
    description: bulkNote,
    tags,
    access: ['Admin'],
    body: warehousesBody,
    bodyLimit: BULK_BODY_LIMIT,
    response: bulkResultDto(warehouseDto),
    handler: ({ em, auth, body }) => upsertWarehouses(em, auth.clientId, body),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/products',
    operationId: 'UpsertProducts',
    summary: 'Create or replace products by SKU, with the codes a scan resolves (SKU, UPC, shadow SKUs, aliases)',
    description:
      `${bulkNote} SKUs are unique per company case-insensitively; a SKU that differs from a stored one only in case is refused. ` +
      'Kit components are not checked against the catalog, so kits may be loaded before their parts.',
    tags,
    access: ['Admin'],
    body: productsBody,
    bodyLimit: BULK_BODY_LIMIT,
    response: bulkResultDto(productDto),
    handler: ({ em, auth, body }) => upsertProducts(em, auth.clientId, body),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/products',
    operationId: 'ListProducts',
    summary: 'List the loaded products, a page at a time',
    action: 'list the loaded products',
    description:
      'Products in a stable order (by id, oldest first). search matches part of the SKU, title, UPC, a shadow SKU or an alias, ignoring case. ' +
      'A page holds at most limit products; nextCursor, when not null, fetches the next page (pass it as cursor with the same search).',
    tags,
    access: ['Admin'],
    query: z.object({
      search: z.string().trim().max(200).optional().describe('Part of a SKU, title, UPC, shadow SKU or alias (any case); absent or empty: every product.'),
      limit: z.coerce.number().int().min(1).max(MAX_PRODUCT_PAGE).default(50).describe(`Products per page, 1..${MAX_PRODUCT_PAGE}, default 50.`),
      cursor: z.string().min(1).max(200).optional().describe("The previous page's nextCursor; absent for the first page."),
    }),
    response: z.object({
      items: z.array(productDto),
      nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page.'),
    }),
    handler: ({ em, auth, query }) => listProducts(em, auth.clientId, query),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/orders',
    operationId: 'UpsertOrders',
    summary: 'Create or replace orders by id, keeping their sorting progress',
    description:
      `${bulkNote} The warehouse and every line's product must be loaded first. A SKU may appear once per order. ` +
      'Re-loading an order keeps the sorted and pending units of each line whose SKU stays; a qty below them, removing a line ' +
      'with sorted, pending or cancelled scans, moving an order being sorted to another warehouse, or changing a Shipped order is refused.',
    tags,
    access: ['Admin'],
    body: ordersBody,
    bodyLimit: BULK_BODY_LIMIT,
    response: bulkResultDto(adminOrderDto),
    handler: ({ em, auth, body }) => upsertOrders(em, auth.clientId, body),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/orders/{id}/ship',
    operationId: 'ShipOrder',
    summary: 'Mark an order shipped: it leaves the unshipped listings and no scan matches it any more',
    description:
      'Idempotent: an order already shipped is answered unchanged. A slot holding the order is not touched; the shipper\'s release scan empties it.',
    tags,
    access: ['Admin'],
    params: z.object({ id: idParam.describe('Order id') }),
    response: adminOrderDto,
    errors: ['not-found'],
    handler: ({ em, auth, params }) => shipOrder(em, auth.clientId, params.id),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/picklists',
    operationId: 'UpsertPicklists',
    summary: 'Create or replace picklists by id, with their orders',
    description: `${bulkNote} Every order id must be loaded first; orderIds replaces the earlier list.`,
    tags,
    access: ['Admin'],
    body: picklistsBody,
    bodyLimit: BULK_BODY_LIMIT,
    response: bulkResultDto(picklistDto),
    handler: ({ em, auth, body }) => upsertPicklists(em, auth.clientId, body),
  }),
];
