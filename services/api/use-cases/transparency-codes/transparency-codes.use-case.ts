import { count } from '../../../../shared/text/wording';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, TransparencyCode, type ITransparencyCode } from '../../../../shared/db/entities';
import { checkTransparencyCode } from '../../../../shared/domain/transparency-code';
import { emSql } from '../../../../shared/db/orm-sql';
import { AppError } from '../../../../shared/errors/app-error';
import { orderUnits, unitsKey } from './order-units';
import { deleteProductCodesOfOrder } from './transparency-codes.queries';
import { toTransparencyCodeDto, type TransparencyCodeDto, type TransparencySummaryDto } from './transparency-code.dto';

export interface CreateTransparencyCodeInput {
  orderId: number;
  productId: string;
  code: string;
  preferredKitParentProductId?: string;
}

/**
 * InsertMarketplaceTransparencyCode (docs/api.md §9). The order row is locked, so two sorters recording
 * the last unit's code at once cannot both succeed; the unique index makes a code once per client.
 * A unit goes to the product's own line first, then to the kits holding it, unless the caller names a kit.
 */
export async function createTransparencyCode(em: EntityManager, clientId: number, employeeId: number, input: CreateTransparencyCodeInput): Promise<TransparencyCodeDto> {
  const checked = checkTransparencyCode(input.code);
  if (!checked.ok) {
    throw new AppError('invalid-transparency-code', `The transparency code ${checked.reason}.`, { errors: [{ path: 'code', message: checked.reason }] });
  }
  const code = checked.code;
  try {
    return await em.transactional(async (tx) => {
      // A code already recorded is the most specific refusal: it holds whatever else does (a complete
      // product, another order), so it is checked first; the unique index covers a simultaneous insert.
      await assertCodeIsNew(tx, clientId, code);
      const units = (await orderUnits(tx, clientId, input.orderId, true)).get(unitsKey(input.productId));
      if (!units) {
        throw new AppError('not-found', `Order ${input.orderId} holds no product '${input.productId}', neither on a line nor inside a kit.`);
      }
      const taken = await tx.find(TransparencyCode, { clientId, orderId: input.orderId, productSku: units.sku });
      if (taken.length >= units.total) {
        throw new AppError(
          'transparency-codes-complete',
          `Order ${input.orderId} already has ${count(taken.length, 'code')} for its ${count(units.total, 'unit')} of '${units.sku}'; delete one first to replace it.`,
        );
      }
      const parent = chooseParent(units.byParent, taken, input);
      const row = tx.create(TransparencyCode, {
        clientId,
        orderId: input.orderId,
        productSku: units.sku,
        kitParentSku: parent,
        code,
        createdAt: new Date(),
        createdBy: employeeId,
      });
      await tx.flush();
      return toTransparencyCodeDto(row);
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      await assertCodeIsNew(em.fork(), clientId, code);
      throw codeExists(code, null);
    }
    throw err;
  }
}

function codeExists(code: string, existing: ITransparencyCode | null): AppError {
  const where = existing ? ` (order ${existing.orderId}, product '${existing.productSku}')` : '';
  return new AppError('transparency-code-exists', `The transparency code '${code}' is already recorded${where}; each code is used once.`);
}

/** 409 transparency-code-exists, naming the order that holds it, when the client has recorded `code`. */
async function assertCodeIsNew(em: EntityManager, clientId: number, code: string): Promise<void> {
  const existing = await em.findOne(TransparencyCode, { clientId, code });
  if (existing) throw codeExists(code, existing);
}

function chooseParent(byParent: Map<string | null, number>, taken: ITransparencyCode[], input: CreateTransparencyCodeInput): string | null {
  const used = (parent: string | null) => taken.filter((t) => (t.kitParentSku ?? null) === parent).length;
  const kits = [...byParent.keys()].filter((k): k is string => k !== null);
  if (input.preferredKitParentProductId !== undefined) {
    const preferred = kits.find((k) => unitsKey(k) === unitsKey(input.preferredKitParentProductId!));
    if (preferred === undefined) {
      const detail = kits.length
        ? `'${input.productId}' ships in order ${input.orderId} inside ${kits.map((k) => `'${k}'`).join(', ')}, not inside '${input.preferredKitParentProductId}'`
        : `'${input.productId}' is not inside any kit of order ${input.orderId}`;
      throw new AppError('validation-failed', `preferredKitParentProductId: ${detail}.`, {
        errors: [{ path: 'preferredKitParentProductId', message: detail }],
      });
    }
    // The named kit when it still has a unit without a code; otherwise wherever one is left.
    if (used(preferred) < byParent.get(preferred)!) return preferred;
  }
  for (const parent of [null, ...kits]) {
    const need = byParent.get(parent);
    if (need !== undefined && used(parent) < need) return parent;
  }
  // Counts are checked by the caller, so a place is always left; stored rows from a changed order may not fit one.
  return kits[0] ?? null;
}

export interface TransparencyCodeFilter {
  transparencyCode?: string[];
  orderId?: number[];
  productId?: string[];
}

/** ListMarketplaceTransparencyCodes: filters of one kind are alternatives, different kinds all apply. */
export async function listTransparencyCodes(em: EntityManager, clientId: number, f: TransparencyCodeFilter): Promise<TransparencyCodeDto[]> {
  const qb = em.createQueryBuilder(TransparencyCode, 't').where({ clientId });
  if (f.transparencyCode?.length) qb.andWhere({ code: { $in: f.transparencyCode.map((c) => c.trim()) } });
  if (f.orderId?.length) qb.andWhere({ orderId: { $in: f.orderId } });
  if (f.productId?.length) qb.andWhere('upper(t.product_sku) in (?)', [f.productId.map(unitsKey)]);
  const rows = await qb.orderBy({ id: 'asc' }).getResult();
  return rows.map(toTransparencyCodeDto);
}

async function assertOrder(em: EntityManager, clientId: number, orderId: number): Promise<void> {
  if (!(await em.count(Order, { clientId, id: orderId }))) throw new AppError('not-found', `Your company has no order ${orderId}.`);
}

export async function listOrderTransparencyCodes(em: EntityManager, clientId: number, orderId: number): Promise<TransparencyCodeDto[]> {
  await assertOrder(em, clientId, orderId);
  const rows = await em.find(TransparencyCode, { clientId, orderId }, { orderBy: { id: 'asc' } });
  return rows.map(toTransparencyCodeDto);
}

export async function deleteOrderTransparencyCodes(em: EntityManager, clientId: number, orderId: number): Promise<void> {
  await assertOrder(em, clientId, orderId);
  await em.nativeDelete(TransparencyCode, { clientId, orderId });
}

export async function deleteOrderProductTransparencyCodes(em: EntityManager, clientId: number, orderId: number, sku: string): Promise<void> {
  await assertOrder(em, clientId, orderId);
  await deleteProductCodesOfOrder(emSql(em), { clientId, orderId, skuKey: unitsKey(sku) });
}

/** DeleteMarketplaceTransparencyCodeForOrder: 404 when that order has no such code, so a typo is noticed. */
export async function deleteOrderTransparencyCode(em: EntityManager, clientId: number, orderId: number, code: string): Promise<void> {
  await assertOrder(em, clientId, orderId);
  const deleted = await em.nativeDelete(TransparencyCode, { clientId, orderId, code: code.trim() });
  if (deleted === 0) throw new AppError('not-found', `Order ${orderId} has no transparency code '${code.trim()}'.`);
}

/** OrderProductRequiresMarketplaceTransparencyCode: the product needs codes and the order holds it (codes recorded or not). */
export async function orderProductRequiresCode(em: EntityManager, clientId: number, orderId: number, sku: string): Promise<boolean> {
  const units = (await orderUnits(em, clientId, orderId)).get(unitsKey(sku));
  return Boolean(units?.requiresCode && units.total > 0);
}

/** ListProductsThatRequireMarketplaceTransparencyCodesForOrder: keyed by SKU, products flagged requiresTransparencyCode only. */
export async function requiredProductsSummary(em: EntityManager, clientId: number, orderId: number): Promise<Record<string, TransparencySummaryDto>> {
  const units = [...(await orderUnits(em, clientId, orderId)).values()].filter((u) => u.requiresCode);
  const rows = await em.find(TransparencyCode, { clientId, orderId }, { orderBy: { id: 'asc' } });
  const summary: Record<string, TransparencySummaryDto> = {};
  for (const u of units) {
    const codes = rows.filter((r) => unitsKey(r.productSku) === unitsKey(u.sku)).map((r) => r.code);
    summary[u.sku] = { productId: u.sku, requiredQuantity: u.total, codes, remainingQuantity: Math.max(0, u.total - codes.length) };
  }
  return summary;
}
