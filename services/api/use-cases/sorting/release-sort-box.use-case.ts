import type { SqlRunner } from '../../../../shared/db/named-sql';
import type { AuthClaims } from '../../../../shared/auth/jwt';
import { isManager } from '../../../../shared/auth/roles';
import { parseSlotBarcode } from '../../../../shared/domain/barcodes';
import type { ReleaseResultDto } from '../../../../shared/dto/sorting.dto';
import { AppError } from '../../../../shared/errors/app-error';
import type { CommandClient } from '../../../../shared/commands/command-client';
import { commandActor } from '../../commands/command-actor';
import { wallOfSlot } from '../../commands/wall-resolver';

/**
 * POST /sort-boxes/{barcode}/release: the shipper's scan of the back-side barcode (or the crc) empties a
 * Complete slot; `force` (Manager, Admin) empties a slot in any state.
 */
export async function releaseSortBox(
  db: SqlRunner,
  commands: CommandClient,
  auth: AuthClaims,
  barcode: string,
  force: boolean,
): Promise<ReleaseResultDto> {
  const parsed = parseSlotBarcode(barcode);
  if (!parsed) {
    throw new AppError('validation-failed', `'${barcode}' is not a slot barcode: scan B-XXXXXXXX on the back of the slot.`, {
      errors: [{ path: 'barcode', message: 'not a slot barcode' }],
    });
  }
  if (parsed.kind === 'sorter') {
    throw new AppError(
      'sorter-barcode-not-accepted',
      `'${barcode.trim()}' is the sorter barcode on the front of the slot; to release the slot, scan the back-side (B-) barcode B-${parsed.crc}.`,
    );
  }
  if (force && !isManager(auth.roles)) {
    throw new AppError('forbidden', 'Only a Manager or Admin may force the release of a slot.');
  }
  const wallId = await wallOfSlot(db, auth.clientId, parsed.crc);
  return commands.execute('slot.release', { ...commandActor(auth, wallId), crc: parsed.crc, force });
}
