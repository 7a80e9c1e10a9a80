import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthClaims } from '../../../../shared/auth/jwt';
import { OrderItem, SortBox, SortBoxItem, type BarcodeInputMethod } from '../../../../shared/db/entities';
import type { SortBoxItemDto } from '../../../../shared/dto/sorting.dto';
import { toItemDto } from '../../../../shared/dto/sorting.mappers';
import { notFound } from '../../../../shared/errors/app-error';
import type { CommandClient } from '../../../../shared/commands/command-client';
import { commandActor } from '../../commands/command-actor';
import { rememberItemWall, wallOfItem, wallOfSession } from '../../commands/wall-resolver';
import { assertPin } from '../security/assert-pin.use-case';
import { emSql } from '../../../../shared/db/orm-sql';
import type { SqlRunner } from '../../../../shared/db/named-sql';
import type { RequestDb } from '../../http/route';
import type { PinDeps } from '../security/pin-attempts';

type SortingDeps = PinDeps & { commands: CommandClient };

export interface ScanInput {
  sessionToken: string;
  barcode: string;
  barcodeInputMethod: BarcodeInputMethod;
}

/**
 * POST /sort-box-items: a scan. Keying in a product needs the PIN where it is enforced server-side; the
 * session names the wall, and the new item's wall is remembered so its confirm needs no lookup.
 */
export async function scanProduct(
  db: RequestDb,
  deps: SortingDeps,
  auth: AuthClaims,
  input: ScanInput,
  headers: { idempotencyKey: string | null; pin: string | undefined },
): Promise<SortBoxItemDto> {
  if (input.barcodeInputMethod === 'KeyedIn') await assertPin(db.em, deps, auth, headers.pin);
  const wallId = await wallOfSession(db.sql, auth.clientId, input.sessionToken);
  const item = await deps.commands.execute('item.scan', {
    ...commandActor(auth, wallId),
    sessionToken: input.sessionToken,
    barcode: input.barcode,
    barcodeInputMethod: input.barcodeInputMethod,
    idempotencyKey: headers.idempotencyKey,
  });
  rememberItemWall(auth.clientId, item.id, wallId);
  return item;
}

/** GET /sort-box-items/{id}: any item of the caller's company, with its slot and order line figures. */
export async function getSortBoxItem(em: EntityManager, clientId: number, itemId: number): Promise<SortBoxItemDto> {
  const item = await em.findOne(SortBoxItem, { id: itemId, clientId });
  if (!item) throw notFound(`Sort box item ${itemId}`);
  const [slot, line] = await Promise.all([
    item.sortBoxId === null ? null : em.findOne(SortBox, { id: item.sortBoxId }),
    em.findOneOrFail(OrderItem, { id: item.orderItemId }),
  ]);
  // A detached slot leaves its crc on the item; position 0 says the slot is gone.
  return toItemDto(item, slot ?? { crc: item.crc, position: 0 }, line);
}

/** PATCH /sort-box-items/{id}/confirm: `barcode`, when given, is the slot the unit went into; `serial`, the unit's serial number. */
export async function confirmSortBoxItem(
  db: SqlRunner,
  commands: CommandClient,
  auth: AuthClaims,
  itemId: number,
  units: number,
  barcode: string | null,
  serial: string | null = null,
): Promise<SortBoxItemDto> {
  const wallId = await wallOfItem(db, auth.clientId, itemId);
  return commands.execute('item.confirm', { ...commandActor(auth, wallId), itemId, units, barcode, serial });
}

/** PATCH /sort-box-items/{id}/cancel: needs the PIN where it is enforced server-side. */
export async function cancelSortBoxItem(
  em: EntityManager,
  deps: SortingDeps,
  auth: AuthClaims,
  itemId: number,
  pin: string | undefined,
): Promise<SortBoxItemDto> {
  const wallId = await wallOfItem(emSql(em), auth.clientId, itemId);
  await assertPin(em, deps, auth, pin);
  return deps.commands.execute('item.cancel', { ...commandActor(auth, wallId), itemId });
}

/** PATCH /sort-box-items/{id}/swap: move the item's order to the empty slot `barcode` names. */
export async function swapSortBoxItemSlot(
  em: EntityManager,
  commands: CommandClient,
  auth: AuthClaims,
  itemId: number,
  target: { sessionToken: string; barcode: string },
): Promise<SortBoxItemDto> {
  const wallId = await wallOfItem(emSql(em), auth.clientId, itemId);
  return commands.execute('item.swap', { ...commandActor(auth, wallId), itemId, sessionToken: target.sessionToken, barcode: target.barcode });
}
