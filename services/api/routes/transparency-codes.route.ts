import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { transparencyCodeDto, transparencySummaryDto } from '../use-cases/transparency-codes/transparency-code.dto';
import {
  createTransparencyCode,
  deleteOrderProductTransparencyCodes,
  deleteOrderTransparencyCode,
  deleteOrderTransparencyCodes,
  listOrderTransparencyCodes,
  listTransparencyCodes,
  orderProductRequiresCode,
  requiredProductsSummary,
} from '../use-cases/transparency-codes/transparency-codes.use-case';

const tags = ['Marketplace transparency codes'];
// Sorters record codes while they sort, so every role reads and writes them (roles nest: Sorter is the floor).
const access = ['Sorter'] as const;

const sku = z.string().trim().min(1).max(200);
/** `?orderId=1&orderId=2`: a repeated query parameter arrives as an array, a single one as a string. */
const queryArray = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item).max(1000).optional());

const orderParams = z.object({ orderId: idParam.describe('Order id') });

export const transparencyCodesRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/marketplace-transparency-code',
    operationId: 'ListMarketplaceTransparencyCodes',
    summary: "Your company's transparency codes, filtered",
    description:
      'Each filter may repeat (`?orderId=1&orderId=2`): values of one filter are alternatives, different filters all apply. ' +
      'productId is a SKU, matched in any letter case. Oldest first.',
    tags,
    access,
    query: z.object({
      transparencyCode: queryArray(z.string().min(1).max(200)),
      orderId: queryArray(idParam),
      productId: queryArray(sku),
    }),
    response: z.array(transparencyCodeDto),
    handler: ({ em, auth, query }) => listTransparencyCodes(em, auth.clientId, query),
  }),
  defineRoute({
    method: 'post',
    path: '/marketplace-transparency-code',
    operationId: 'InsertMarketplaceTransparencyCode',
    summary: 'Record a transparency code for one unit of a product in an order',
    description:
      'A code is AZ: or ZA: plus 26 upper-case letters or digits, a 38-character SGTIN, or a 7–22 character brand serial (else 422 ' +
      'invalid-transparency-code). Each code once per company (409 transparency-code-exists); at most one per unit of the product ' +
      'in the order, kit contents included (409 transparency-codes-complete). When the product ships inside a kit of the order the ' +
      "kit is recorded as kitParentProductId: the product's own line is filled first, then its kits, unless " +
      'preferredKitParentProductId names one (400 when the product is not inside that kit in this order). ' +
      '404 when the order is unknown or holds no such product.',
    tags,
    access,
    query: z.object({ preferredKitParentProductId: sku.optional().describe('SKU of the kit in the order this unit belongs to') }),
    body: z.object({
      orderId: idParam,
      productId: sku.describe("The product's SKU"),
      code: z.string().min(1).max(200),
    }),
    response: transparencyCodeDto,
    errors: ['validation-failed', 'not-found', 'transparency-code-exists', 'transparency-codes-complete', 'invalid-transparency-code'],
    handler: ({ em, auth, body, query }) =>
      createTransparencyCode(em, auth.clientId, auth.employeeId, { ...body, preferredKitParentProductId: query.preferredKitParentProductId }),
  }),
  defineRoute({
    method: 'get',
    path: '/marketplace-transparency-code/orders/{orderId}',
    operationId: 'ListMarketplaceTransparencyCodesForOrder',
    summary: 'The transparency codes of an order, oldest first',
    tags,
    access,
    params: orderParams,
    response: z.array(transparencyCodeDto),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => listOrderTransparencyCodes(em, auth.clientId, params.orderId),
  }),
  defineRoute({
    method: 'delete',
    path: '/marketplace-transparency-code/orders/{orderId}',
    operationId: 'DeleteAllMarketplaceTransparencyCodesForOrder',
    summary: 'Delete every transparency code of an order',
    tags,
    access,
    params: orderParams,
    errors: ['not-found'],
    handler: ({ em, auth, params }) => deleteOrderTransparencyCodes(em, auth.clientId, params.orderId),
  }),
  defineRoute({
    method: 'get',
    path: '/marketplace-transparency-code/orders/{orderId}/products/required/{sku}',
    operationId: 'OrderProductRequiresMarketplaceTransparencyCode',
    summary: 'Whether a product of an order needs transparency codes',
    description:
      'true when the product is flagged requiresTransparencyCode and the order holds it (on a line or inside a kit), whether or not ' +
      'its codes are all recorded (the summary tells what is left); false otherwise. 404 for an unknown order.',
    tags,
    access,
    params: orderParams.extend({ sku }),
    response: z.boolean(),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => orderProductRequiresCode(em, auth.clientId, params.orderId, params.sku),
  }),
  defineRoute({
    method: 'get',
    path: '/marketplace-transparency-code/orders/{orderId}/products/required',
    operationId: 'ListProductsThatRequireMarketplaceTransparencyCodesForOrder',
    summary: 'The products of an order that need transparency codes, with the codes recorded and the count left, keyed by SKU',
    tags,
    access,
    params: orderParams,
    response: z.record(z.string(), transparencySummaryDto),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => requiredProductsSummary(em, auth.clientId, params.orderId),
  }),
  defineRoute({
    method: 'delete',
    path: '/marketplace-transparency-code/orders/{orderId}/codes/{code}',
    operationId: 'DeleteMarketplaceTransparencyCodeForOrder',
    summary: 'Delete one transparency code of an order',
    description: 'The code is URL-encoded in the path (AZ%3A...). 404 when the order has no such code.',
    tags,
    access,
    params: orderParams.extend({ code: z.string().min(1).max(200) }),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => deleteOrderTransparencyCode(em, auth.clientId, params.orderId, params.code),
  }),
  defineRoute({
    method: 'delete',
    path: '/marketplace-transparency-code/orders/{orderId}/products/{sku}',
    operationId: 'DeleteAllMarketplaceTransparencyCodesForSkuInOrder',
    summary: "Delete every transparency code of one product (SKU, any letter case) in an order",
    tags,
    access,
    params: orderParams.extend({ sku }),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => deleteOrderProductTransparencyCodes(em, auth.clientId, params.orderId, params.sku),
  }),
];
