import { AppError } from '../../shared/errors/app-error';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SortBox, SortBoxItem, SorterSession, type ISortBox, type ISortBoxItem, type Role } from '../../shared/db/entities';
import type { LineFigures } from '../../shared/dto/sorting.mappers';
import { isOwnerOrManager } from '../../shared/auth/roles';
import { touchSession } from './session-access';
import { finishedItemCode } from '../../machines/sort-box-item.machine';
import { refusalError } from '../../machines/refusals';

/** Only the sorter who scanned an item, or a Manager, may confirm, cancel or swap it. */
export function assertMayChangeItem(itemId: number, scannedBy: number, actor: { userId: number; roles: readonly Role[] }): void {
  if (!isOwnerOrManager(scannedBy, actor)) {
    throw new AppError('forbidden', `Sort box item ${itemId} was scanned by another sorter; only they or a Manager may change it.`);
  }
}

/** The item, if it is this client's and on this wall, and the caller may act on it (docs/api.md §7). */
export async function itemForActor(
  tx: EntityManager,
  cmd: { clientId: number; wallId: number; itemId: number; userId: number; roles: Role[] },
): Promise<{ item: ISortBoxItem; slot: ISortBox }> {
  const item = await tx.findOne(SortBoxItem, { id: cmd.itemId, clientId: cmd.clientId, wallId: cmd.wallId });
  if (!item) throw new AppError('not-found', `Sort box item ${cmd.itemId} was not found.`);
  assertMayChangeItem(item.id, item.userId, cmd);
  const slot = item.sortBoxId === null ? null : await tx.findOne(SortBox, { id: item.sortBoxId });
  if (!slot) throw refusalError({ code: finishedItemCode(item.status), state: item.status }, { item, slot: null });
  return { item, slot };
}

/** Locks the order line (another wall's scan may reserve from it concurrently) and reads its figures. */
export async function lockLine(tx: EntityManager, orderItemId: number): Promise<LineFigures> {
  const [row] = await tx.execute<{ qty: number; confirmed_qty: number; pending_qty: number }[]>(
    'select qty, confirmed_qty, pending_qty from order_item where id = ? for update',
    [orderItemId],
  );
  return { qty: row.qty, confirmedQty: row.confirmed_qty, pendingQty: row.pending_qty };
}

export async function updateLine(tx: EntityManager, orderItemId: number, deltaConfirmed: number, deltaPending: number): Promise<LineFigures> {
  const [row] = await tx.execute<{ qty: number; confirmed_qty: number; pending_qty: number }[]>(
    `update order_item set confirmed_qty = confirmed_qty + ?, pending_qty = pending_qty + ?
      where id = ? returning qty, confirmed_qty, pending_qty`,
    [deltaConfirmed, deltaPending, orderItemId],
  );
  return { qty: row.qty, confirmedQty: row.confirmed_qty, pendingQty: row.pending_qty };
}

/** Any confirm, cancel or swap is activity of the caller's connected session on the wall, if any. */
export async function touchCallerSession(tx: EntityManager, wallId: number, userId: number, now: Date, idleTimeoutMs: number): Promise<void> {
  const session = await tx.findOne(SorterSession, { wallId, userId, status: 'Connected' });
  if (session) touchSession(session, now, idleTimeoutMs);
}
