import { parseSlotBarcode } from '../../shared/domain/barcodes';
import type { TypedWallEvent } from '../../shared/events/event-schemas';
import { WRONG_SLOT_CODES } from '../../shared/events/event-rules';
import { FLASH_MS } from '../../shared/lights/light-model';
import type { RelayedTypedEvent } from '../pipeline/consumer-runner';
import type { Cue, LightsEngine } from './lights-engine';

/** Refusals of a confirm that name a slot the sorter should not have scanned: the right slot and the wrong one flash. */
const isSlotRefusal = (e: TypedWallEvent): e is Extract<TypedWallEvent, { type: 'command.refused' }> =>
  e.type === 'command.refused' && e.data.command === 'item.confirm' && (WRONG_SLOT_CODES as readonly string[]).includes(e.data.code);

/** The flashes a refused confirm asks for: the right slot in its sorter's color, the scanned one red. */
function cuesOf(event: TypedWallEvent, now: number): Cue[] {
  if (!isSlotRefusal(event) || event.data.crc === null) return [];
  const d = event.data;
  // A refusal delivered again long after (a retried batch) is no cue any more.
  if (now - Date.parse(event.occurredAt) > FLASH_MS) return [];
  const cues: Cue[] = [{ crc: d.crc!, color: 'White', ...(d.sortBoxItemId !== null ? { itemId: d.sortBoxItemId } : {}) }];
  const scanned = d.barcode !== null ? parseSlotBarcode(d.barcode) : null;
  if (scanned && scanned.crc !== d.crc) cues.push({ crc: scanned.crc, color: 'Red' });
  return cues;
}

/**
 * One batch of committed events for the light gateway (worker kind `lights`): each wall an event
 * touches takes the events into its light state (or is read again from PostgreSQL) and is shown; a
 * refused confirm on a wrong slot also flashes the right slot in the sorter's color and the scanned
 * one red (docs/lights.md). Idempotent: an event the wall's state already holds changes nothing.
 */
export async function handleLightsEvents(engine: LightsEngine, events: readonly RelayedTypedEvent[], now = Date.now()): Promise<void> {
  const cues = new Map<number, Cue[]>();
  for (const e of events) {
    if (e.wallId === null) continue;
    const c = cuesOf(e, now);
    if (c.length) cues.set(e.wallId, [...(cues.get(e.wallId) ?? []), ...c]);
  }
  engine.consuming();
  await engine.apply(events, cues);
}
