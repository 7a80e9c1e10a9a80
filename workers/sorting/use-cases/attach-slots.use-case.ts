import { AppError, type FieldError } from '../../../shared/errors/app-error';
import { crc32Hex } from '../../../shared/domain/crc';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SortBoxDto } from '../../../shared/dto/sorting.dto';
import { toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { StaleWallState, type CommandContext } from '../actor/wall-actor';
import type { SlotRow } from '../actor/wall-state';

const path = (i: number) => `serialNumbers[${i}]`;

function summarize(errors: FieldError[]): string {
  const shown = errors.slice(0, 3).map((e) => e.message).join('; ');
  return errors.length > 3 ? `${shown}; and ${errors.length - 3} more (see errors[])` : shown;
}

/**
 * PUT /walls/{id}/sort-boxes (docs/api.md §5): attaches slots, idempotently and all-or-nothing.
 * Serial numbers already on this wall stay as they are; new ones get crc = CRC-32 of the serial and
 * the positions after the wall's last one, in request order. The answer has one SortBox per entry of
 * the request, in request order (a serial repeated in the request is attached once and answered at each
 * of its places). Whether a device is on another wall of the client is read from the database; two
 * attachments of one device at once meet in the unique index, and the loser decides again.
 */
export async function attachSlots(ctx: CommandContext, cmd: CommandPayloads['slots.attach']): Promise<SortBoxDto[]> {
  const { state, changes } = ctx;
  const wall = state.wall;
  const firstIndex = new Map<string, number>();
  cmd.serialNumbers.forEach((s, i) => {
    if (!firstIndex.has(s)) firstIndex.set(s, i);
  });
  const bySerial = new Map<string, SlotRow>();
  for (const s of state.slots.values()) if (firstIndex.has(s.serialNumber)) bySerial.set(s.serialNumber, s);
  const fresh = [...firstIndex.keys()].filter((s) => !bySerial.has(s)).map((serialNumber) => ({ serialNumber, crc: crc32Hex(serialNumber) }));
  const read = await ctx.reads.attach(fresh.map((f) => f.serialNumber), [...new Set(fresh.map((f) => f.crc))], fresh.length);

  // A serial number belongs to one wall of the client.
  if (read.bySerial.some((b) => b.wallId === wall.id)) throw new StaleWallState(`a slot of wall ${wall.id} is not held`);
  if (read.bySerial.length > 0) {
    const errors = read.bySerial
      .map((b) => ({ i: firstIndex.get(b.serialNumber)!, b }))
      .sort((x, y) => x.i - y.i)
      .map(({ i, b }) => ({
        path: path(i),
        message: `serial number '${b.serialNumber}' (crc ${b.crc}) is attached to wall '${b.wallName}' (wall ${b.wallId}, position ${b.position})`,
      }));
    throw new AppError(
      'serial-attached-elsewhere',
      `Nothing was attached to wall '${wall.name}': ${summarize(errors)}. Detach a slot from its wall first (DELETE /walls/{id}/sort-boxes/{crc}) to move it.`,
      { errors },
    );
  }

  // Two serial numbers with one crc would print the same barcodes: the scans could not tell them apart.
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
  for (const h of read.byCrc) {
    const serialNumber = byCrc.get(h.crc.trim());
    if (serialNumber === undefined) continue;
    errors.push({
      path: path(firstIndex.get(serialNumber)!),
      message: `serial number '${serialNumber}' has crc ${h.crc}, like serial number '${h.serialNumber}' on wall '${h.wallName}' (position ${h.position})`,
    });
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
    let last = 0;
    for (const s of state.slots.values()) last = Math.max(last, s.position);
    const attached = fresh.map((f, k): SlotRow => ({
      id: read.ids[k]!,
      wallId: wall.id,
      serialNumber: f.serialNumber,
      crc: f.crc,
      position: last + 1 + k,
      status: 'Empty',
      orderId: null,
      assignedAt: null,
    }));
    for (const s of attached) {
      changes.newSlots.push(s);
      bySerial.set(s.serialNumber, s);
    }
    const dto = state.wallDto(wall, { slotCount: state.slots.size + attached.length, connectedSorters: state.sessions.size });
    changes.emit('wall.updated', { wall: dto, change: 'sort-boxes-attached', sortBoxes: attached.map(toSortBoxDto) });
  }
  return cmd.serialNumbers.map((s) => toSortBoxDto(bySerial.get(s)!));
}
