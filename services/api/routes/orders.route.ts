import { z } from 'zod';
import { WALL_WORKFLOWS } from '../../../shared/db/entities';
import { ORDER_PRIORITIES } from '../../../shared/domain/priority';
import { ORDER_STATUSES } from '../../../shared/db/entities/order.entity';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam, queryBool } from '../http/validation';
import { listUnshippedOrderIds } from '../use-cases/orders/list-unshipped-order-ids.use-case';
import { getOrder } from '../use-cases/orders/get-order.use-case';
import { listUnshippedOrders } from '../use-cases/orders/list-unshipped-orders.use-case';
import { SORT_STATUSES } from '../use-cases/orders/order-record';
import { listUnshippedProducts } from '../use-cases/orders/list-unshipped-products.use-case';

const MAX_LIMIT = 10000;

const requiredBool = (description: string) =>
  z
    .enum(['true', 'false', '1', '0', 'True', 'False'], {
      error: (iss) => (iss.input === undefined ? 'is required: true or false' : 'must be true or false'),
    })
    .transform((v) => v === 'true' || v === '1' || v === 'True')
    .describe(description);

const optionalBool = (fallback: boolean, description: string) =>
  queryBool.optional().transform((v) => v ?? fallback).describe(`${description} Default ${fallback}.`);

const filterQuery = z.object({
  bins: requiredBool('Required. true: each line (or product) carries its bin locations; false: the bins field is left out.'),
  recent: optionalBool(true, 'true: only orders placed within the last RECENT_ORDER_DAYS days (30 unless configured).'),
  empty: optionalBool(false, 'true: also orders with nothing left to sort (every line fully confirmed).'),
  allowDropShip: optionalBool(false, 'true: also drop-ship orders.'),
  priority: z.enum(ORDER_PRIORITIES).optional().describe('Only orders of this priority.'),
  workflow: z
    .enum(WALL_WORKFLOWS)
    .optional()
    .describe('PicklistSort: only orders that belong to an Open picklist; FreeSort (or absent): every order.'),
  warehouseId: idParam.optional().describe("Only orders of this warehouse (the client's own warehouse id)."),
});

const listQuery = filterQuery.extend({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .describe(`At most this many orders (the most urgent first), 1..${MAX_LIMIT}. Absent: all matching orders.`),
});

const shipToDto = z.object({
  name: z.string(),
  street1: z.string(),
  street2: z.string().nullable().optional(),
  city: z.string(),
  state: z.string().nullable().optional(),
  postalCode: z.string(),
  country: z.string(),
});

const orderLineDto = z.object({
  sku: z.string(),
  qty: z.number().int(),
  sortedQty: z.number().int().describe('Units confirmed into the slot.'),
  bins: z.array(z.string()).optional().describe('Present only with bins=true.'),
});

const orderDto = z.object({
  id: z.number().int(),
  warehouseId: z.number().int(),
  orderDate: z.string().describe('ISO 8601 UTC'),
  priority: z.enum(ORDER_PRIORITIES),
  isDropShip: z.boolean(),
  status: z.enum(ORDER_STATUSES),
  shipTo: shipToDto,
  wallId: z.number().int().nullable().describe('The wall whose slot holds the order now; null when in no slot.'),
  crc: z.string().nullable().describe('The crc of the slot holding the order now; null when in no slot.'),
  sortStatus: z
    .enum(SORT_STATUSES)
    .describe('Sorted: every unit confirmed. InProgress: some unit confirmed or pending, or the order holds a slot. NotStarted: otherwise.'),
  items: z.array(orderLineDto),
});

/** GET /orders/{id}: the same record, each line also with its pending units. */
const orderWithPendingDto = orderDto.extend({
  items: z.array(
    orderLineDto.extend({
      pendingQty: z.number().int().describe('Units scanned into the slot and waiting for their confirmation (A- scan).'),
      serials: z.array(z.string()).describe('The serial numbers its units were confirmed with, in the order confirmed; empty for a product without serials.'),
    }),
  ),
});

const productSummaryDto = z.object({
  sku: z.string(),
  title: z.string().nullable().describe("null when the sku is not in the client's catalog"),
  unitsToSort: z.number().int().describe('Sum of qty - confirmed over the matching orders.'),
  orders: z.number().int().describe('Matching orders that still need units of this sku.'),
  bins: z.array(z.string()).optional().describe('With bins=true: distinct bins of the lines that still need units.'),
});

const FILTER_DOC =
  'Unshipped orders of your client, filtered by the query parameters, most urgent first ' +
  '(priority Critical..Low, then oldest orderDate, then lowest id).';

export const ordersRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/orders/unshipped',
    operationId: 'ListUnshippedOrders',
    summary: 'List unshipped orders with their lines and where they are being sorted',
    description: FILTER_DOC,
    tags: ['Orders'],
    access: 'authenticated',
    query: listQuery,
    response: z.array(orderDto),
    handler: ({ em, auth, query, deps }) => listUnshippedOrders(em, auth.clientId, query, deps.config),
  }),
  defineRoute({
    method: 'get',
    path: '/orders/unshipped/ids',
    operationId: 'ListUnshippedOrderIds',
    summary: 'List the ids of unshipped orders',
    description: `${FILTER_DOC} bins is required (as for the other listings) but changes nothing here.`,
    tags: ['Orders'],
    access: 'authenticated',
    query: listQuery,
    response: z.array(z.number().int()),
    handler: ({ em, auth, query, deps }) => listUnshippedOrderIds(em, auth.clientId, query, deps.config),
  }),
  defineRoute({
    method: 'get',
    path: '/orders/unshipped/products',
    operationId: 'ListUnshippedOrdersProductsSummary',
    summary: 'Per product: units still to sort over the unshipped orders, and how many orders need it',
    description:
      'Same filters as ListUnshippedOrders. Only products with units left to sort, unless empty=true. ' +
      'Most units first, then sku.',
    tags: ['Orders'],
    access: 'authenticated',
    query: filterQuery,
    response: z.array(productSummaryDto),
    handler: ({ em, auth, query, deps }) => listUnshippedProducts(em, auth.clientId, query, deps.config),
  }),
  // After the /orders/unshipped paths, which this one would otherwise take as an id.
  defineRoute({
    method: 'get',
    path: '/orders/{id}',
    operationId: 'GetOrder',
    summary: 'Read one order: its lines with units sorted and pending, and the slot it is in',
    description:
      'Any status (Unshipped or Shipped). wallId and crc name the slot holding the order now (null when none); ' +
      "each line's sortedQty counts confirmed units, pendingQty units scanned and not yet confirmed, serials the serial numbers of its confirmed units. " +
      "An unknown id, or another client's order, is 404.",
    tags: ['Orders'],
    access: 'authenticated',
    params: z.object({ id: idParam.describe('The order id (the client\'s own id)') }),
    query: z.object({ bins: optionalBool(false, "true: each line carries its bin locations.") }),
    response: orderWithPendingDto,
    errors: ['validation-failed', 'not-found'],
    handler: ({ em, auth, params, query }) => getOrder(em, auth.clientId, params.id, query),
  }),
];
