import { z } from 'zod';
import type { ITransparencyCode } from '../../../../shared/db/entities';

export const transparencyCodeDto = z.object({
  id: z.number().int(),
  orderId: z.number().int(),
  productId: z.string().describe("The product's SKU"),
  kitParentProductId: z.string().nullable().describe('SKU of the kit in the order this unit ships in; null for a unit ordered on its own'),
  code: z.string(),
  createdAt: z.string().describe('ISO 8601 UTC'),
  createdBy: z.number().int().nullable().describe('Employee id of whoever recorded it; null once that employee is deleted'),
});
export type TransparencyCodeDto = z.infer<typeof transparencyCodeDto>;

export const transparencySummaryDto = z.object({
  productId: z.string().describe("The product's SKU"),
  requiredQuantity: z.number().int().describe('Units of the product in the order: its own line plus each kit line times the kit component quantity'),
  codes: z.array(z.string()).describe('Codes recorded so far, oldest first'),
  remainingQuantity: z.number().int().describe('requiredQuantity minus the codes recorded, never below 0'),
});
export type TransparencySummaryDto = z.infer<typeof transparencySummaryDto>;

export function toTransparencyCodeDto(r: ITransparencyCode): TransparencyCodeDto {
  return {
    id: r.id,
    orderId: r.orderId,
    productId: r.productSku,
    kitParentProductId: r.kitParentSku ?? null,
    code: r.code,
    createdAt: new Date(r.createdAt).toISOString(),
    createdBy: r.createdBy ?? null,
  };
}
