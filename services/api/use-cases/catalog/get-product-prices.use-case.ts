import type { EntityManager } from '@mikro-orm/postgresql';
import { Product, type IProduct } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';

/** The catalog price record, with its PascalCase field names (docs/api.md §1, §9). */
export interface CatalogPriceRecord {
  StopLossPrice: number | null;
  SitePrice: number | null;
  ChannelsPrices: { ChannelID: number; Price: number; UseDefaultSitePrice: boolean }[];
}

const INT32_MAX = 2147483647;

/**
 * Finds a product of the client by its numeric id, else by its exact SKU: a SKU may itself be all
 * digits ("10042"), so an all-digit identifier that is no product id of this client is tried as a SKU.
 */
export async function findProductByIdOrSku(em: EntityManager, clientId: number, productId: string): Promise<IProduct | null> {
  if (/^\d{1,10}$/.test(productId) && Number(productId) >= 1 && Number(productId) <= INT32_MAX) {
    const byId = await em.findOne(Product, { clientId, id: Number(productId) });
    if (byId) return byId;
  }
  return em.findOne(Product, { clientId, sku: productId });
}

/** GetPrices: prices not loaded for the product are null (SitePrice, StopLossPrice) or an empty list. */
export async function getProductPrices(em: EntityManager, clientId: number, productId: string): Promise<CatalogPriceRecord> {
  const product = await findProductByIdOrSku(em, clientId, productId);
  if (!product) {
    throw new AppError(
      'not-found',
      `No product with id or SKU '${productId}' in your catalog. Check the identifier, or load the product with PUT /api/v1/admin/products.`,
    );
  }
  return {
    StopLossPrice: product.stopLossPrice ?? null,
    SitePrice: product.sitePrice ?? null,
    ChannelsPrices: (product.channelPrices ?? []).map((c) => ({
      ChannelID: c.channelId,
      Price: c.price,
      UseDefaultSitePrice: c.useDefaultSitePrice,
    })),
  };
}
