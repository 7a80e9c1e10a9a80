import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { getProductPrices } from '../use-cases/catalog/get-product-prices.use-case';

const productId = z
  .string()
  .min(1, 'is required: a product id or SKU')
  .max(500)
  .describe('The numeric product id, or the SKU (any characters; URL-encode them). An all-digit value that is no product id is looked up as a SKU.');

const priceRecord = z.object({
  StopLossPrice: z.number().nullable().describe('null when no stop-loss price is loaded'),
  SitePrice: z.number().nullable().describe('null when no site price is loaded'),
  ChannelsPrices: z.array(
    z.object({
      ChannelID: z.number().int(),
      Price: z.number(),
      UseDefaultSitePrice: z.boolean(),
    }),
  ),
});

const PRICES_PATH = '/rest/api/Catalog/Prices';

export const catalogRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: PRICES_PATH,
    operationId: 'GetPrices',
    summary: "A product's prices: stop-loss, site and per channel",
    description:
      'Served under /catalog (or on CATALOG_PORT), not /api/v1. Field names are PascalCase. Prices not loaded are null; ' +
      'no channel prices is an empty list. An unknown product answers 404.',
    tags: ['Catalog'],
    access: 'authenticated',
    query: z.object({ productID: productId }),
    response: priceRecord,
    errors: ['not-found'],
    handler: ({ em, auth, query }) => getProductPrices(em, auth.clientId, query.productID),
  }),
  defineRoute({
    method: 'get',
    path: '/api/Catalog/{productID}/Prices',
    operationId: 'GetPricesObsolete',
    summary: 'Obsolete: use GET /rest/api/Catalog/Prices?productID= (this path cannot carry every character of a SKU)',
    description:
      'Answers like GetPrices, with the headers `Deprecation: true` and `Link: <.../rest/api/Catalog/Prices?productID=...>; rel="successor-version"`.',
    tags: ['Catalog'],
    access: 'authenticated',
    deprecated: true,
    params: z.object({ productID: productId }),
    response: priceRecord,
    errors: ['not-found'],
    // req.baseUrl is where the catalog is mounted (/catalog, also on its own CATALOG_PORT).
    successor: ({ req, params }) => `${req.baseUrl}${PRICES_PATH}?productID=${encodeURIComponent(params.productID)}`,
    handler: ({ em, auth, params }) => getProductPrices(em, auth.clientId, params.productID),
  }),
];
