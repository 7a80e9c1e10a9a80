import type { EntityManager } from '@mikro-orm/postgresql';
import { SortBox, Wall, type ISortBox } from '../../../../shared/db/entities';
import { crc32Hex } from '../../../../shared/domain/crc';
import { AppError, type FieldError } from '../../../../shared/errors/app-error';
import type { SortBoxDto } from '../../../../shared/dto/sorting.dto';
import { toSortBoxDto } from '../../../../shared/dto/sorting.mappers';
import { emitWallUpdated, isUniqueViolation, lockWall } from './wall-access';
import { countsOfWall } from './list-walls.use-case';
import { toWallDto } from '../../../../shared/dto/wall.dto';

const SERIAL_INDEX = 'sort_box_serial_uq';
const CRC_INDEX = 'sort_box_crc_uq';

const path = (i: number) => `serialNumbers[${i}]`;

function summarize(errors: FieldError[]): string {
  const shown = errors.slice(0, 3).map((e) => e.message).join('; ');
  return errors.length > 3 ? `${shown}; and ${errors.length - 3} more (see errors[])` : shown;
}

/**
 * PUT /walls/{id}/sort-boxes: attaches slots, idempotently and all-or-nothing.
 * Serial numbers already on this wall stay as they are; new ones get crc = CRC-32 of the serial
 * and the positions after the wall's last one, in request order. The answer has one SortBox per
 * entry of the request, in request order (a serial repeated in the request is attached once and
 * answered at each of its places).
 */
export async function attachSortBoxes(em: EntityManager, clientId: number, wallId: number, serialNumbers: string[], retried = false): Promise<SortBoxDto[]> {
  try {
    return await em.transactional(async (tx) => {
      const wall = await lockWall(tx, clientId, wallId);
      const firstIndex = new Map<string, number>();
      serialNumbers.forEach((s, i) => {
        if (!firstIndex.has(s)) firstIndex.set(s, i);
      });
      const unique = [...firstIndex.keys()];

      const existing = await tx.find(SortBox, { clientId, serialNumber: { $in: unique } });
      const bySerial = new Map<string, ISortBox>(existing.map((b) => [b.serialNumber, b]));

      // A serial number belongs to one wall of the client (seed: "only one wall per client").
      const elsewhere = existing.filter((b) => b.wallId !== wall.id);
      if (elsewhere.length > 0) {
        const names = await wallNames(tx, clientId, elsewhere.map((b) => b.wallId));
        const errors = elsewhere
          .map((b) => ({ i: firstIndex.get(b.serialNumber)!, b }))
          .sort((x, y) => x.i - y.i)
          .map(({ i, b }) => ({
            path: path(i),
            message: `serial number '${b.serialNumber}' (crc ${b.crc}) is attached to wall '${names.get(b.wallId)}' (wall ${b.wallId}, position ${b.position})`,
          }));
        throw new AppError(
          'serial-attached-elsewhere',
          `Nothing was attached to wall '${wall.name}': ${summarize(errors)}. Detach a slot from its wall first (DELETE /walls/{id}/sort-boxes/{crc}) to move it.`,
          { errors },
        );
      }

      // Two serial numbers with one crc would print the same barcodes: the scans could not tell them apart.
      const fresh = unique.filter((s) => !bySerial.has(s)).map((serialNumber) => ({ serialNumber, crc: crc32Hex(serialNumber) }));
      const errors: FieldError[] = [];
      const byCrc = new Map<string, string>();
      for (const f of fresh) {
        const other = byCrc.get(f.crc);
        if (other !== undefined) {
          errors.push({
            path: path(firstIndex.get(f.serialNumber)!),
            message: `serial number '${f.serialNumber}' has crc ${f.crc}, like '${other}' at ${path(firstIndex.get(other)!)} of this request`,
          });
        } else {
          byCrc.set(f.crc, f.serialNumber);
        }
      }
      if (byCrc.size > 0) {
        const holders = await tx.find(SortBox, { clientId, crc: { $in: [...byCrc.keys()] } });
        const names = await wallNames(tx, clientId, holders.map((h) => h.wallId));
        for (const h of holders) {
          const serialNumber = byCrc.get(h.crc)!;
          errors.push({
            path: path(firstIndex.get(serialNumber)!),
            message: `serial number '${serialNumber}' has crc ${h.crc}, like serial number '${h.serialNumber}' on wall '${names.get(h.wallId)}' (position ${h.position})`,
          });
        }
      }
      if (errors.length > 0) {
        errors.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
        throw new AppError(
          'crc-collision',
          `Nothing was attached to wall '${wall.name}': ${summarize(errors)}. Slots are told apart by their crc barcode, so use a device with another serial number.`,
          { errors },
        );
      }

      if (fresh.length > 0) {
        const [{ last }] = await tx.execute<{ last: number }[]>('select coalesce(max(position), 0)::int as last from sort_box where wall_id = ?', [wall.id]);
        const now = new Date();
        const attached = fresh.map((f, k) => {
          const box = tx.create(SortBox, {
            clientId,
            wallId: wall.id,
            serialNumber: f.serialNumber,
            crc: f.crc,
            position: last + 1 + k,
            status: 'Empty',
            orderId: null,
            assignedAt: null,
            createdAt: now,
          });
          bySerial.set(f.serialNumber, box);
          return box;
        });
        await tx.flush();
        emitWallUpdated(tx, clientId, toWallDto(wall, await countsOfWall(tx, clientId, wall.id)), 'sort-boxes-attached', attached.map(toSortBoxDto), now);
        await tx.flush();
      }
      return serialNumbers.map((s) => toSortBoxDto(bySerial.get(s)!));
    });
  } catch (err) {
    // Another request attached the same device (or one with the same crc) to another wall, whose
    // row lock is not ours, between our check and our insert. PostgreSQL reports whichever unique
    // index it checked first (the same device breaks both), and only once the other request has
    // committed: one more run sees its rows and answers precisely (where, or which crc).
    if (!retried && (isUniqueViolation(err, SERIAL_INDEX) || isUniqueViolation(err, CRC_INDEX))) {
      return attachSortBoxes(em, clientId, wallId, serialNumbers, true);
    }
    if (isUniqueViolation(err, SERIAL_INDEX)) {
      throw new AppError('serial-attached-elsewhere', 'Another request attached one of these serial numbers at the same moment; nothing was attached. Send the request again to see where.');
    }
    if (isUniqueViolation(err, CRC_INDEX)) {
      throw new AppError('crc-collision', 'Another request attached a serial number with the same crc at the same moment; nothing was attached. Send the request again to see which.');
    }
    throw err;
  }
}

async function wallNames(em: EntityManager, clientId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const walls = await em.find(Wall, { clientId, id: { $in: [...new Set(ids)] } });
  return new Map(walls.map((w) => [w.id, w.name]));
}
