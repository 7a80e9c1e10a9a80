import type { TypedWallEvent } from '../../shared/events/event-schemas';
import type { PendingState, SlotState, WallState } from '../../shared/lights/light-model';

/**
 * The events whose data does not carry what they change in a wall's light state: the wall is read
 * again. `lights.mode` is also written outside the wall's command order (the API's light-mode
 * statements), so its outbox id says nothing about what a read of the wall holds.
 */
export const READ_AGAIN_TYPES: ReadonlySet<string> = new Set(['wall.updated', 'lights.mode']);

type SlotChange = { crc: string; status: SlotState['status'] };

/**
 * What an event of the wall's command order changes in its light state: the slots' statuses it
 * names (each event carries its slots as they are after the command) and the pending scan it adds,
 * removes or moves. Null when the state cannot take it (a slot it does not hold): the wall is read
 * again.
 */
function changesOf(state: WallState, e: TypedWallEvent): { slots: SlotChange[]; add?: PendingState; remove?: number; move?: { id: number; crc: string } } | null {
  const has = (crc: string) => state.slots.some((s) => s.crc === crc);
  const slot = (b: { crc: string; status: SlotState['status'] }): SlotChange | null => (has(b.crc) ? { crc: b.crc, status: b.status } : null);
  switch (e.type) {
    case 'sort-box-item.created': {
      const s = slot(e.data.sortBox);
      if (!s) return null;
      const i = e.data.item;
      if (i.status !== 'PendingConfirmation') return { slots: [s] };
      return { slots: [s], add: { id: i.id, crc: i.crc, color: i.color, units: i.units, createdAt: Date.parse(i.createdAt) } };
    }
    case 'sort-box-item.confirmed':
    case 'sort-box-item.cancelled': {
      const s = slot(e.data.sortBox);
      return s ? { slots: [s], remove: e.data.item.id } : null;
    }
    case 'sort-box-item.swapped': {
      const from = slot(e.data.from);
      const to = slot(e.data.to);
      if (!from || !to || !state.pending.some((p) => p.id === e.data.item.id)) return null;
      return { slots: [from, to], move: { id: e.data.item.id, crc: e.data.item.crc } };
    }
    case 'sort-box.completed':
    case 'sort-box.released': {
      const s = slot(e.data.sortBox);
      return s ? { slots: [s] } : null;
    }
    default:
      // command.refused and any other type of the command order change no light state (a refusal's flash is a cue).
      return { slots: [] };
  }
}

/**
 * Applies one event of the wall's command order to its light state, in place; false (and the state
 * untouched) when the event cannot be applied and the wall must be read again. `touched` gathers the
 * crcs of the slots whose lights the event may change (a status it names, a pending scan's slot before
 * and after), so only those are rendered again.
 */
export function applyLightEvent(state: WallState, e: TypedWallEvent, touched?: Set<string>): boolean {
  if (READ_AGAIN_TYPES.has(e.type)) return false;
  const c = changesOf(state, e);
  if (!c) return false;
  for (const { crc, status } of c.slots) {
    const i = state.slots.findIndex((s) => s.crc === crc);
    state.slots[i] = { ...state.slots[i]!, status };
    touched?.add(crc);
  }
  if (touched && (c.add || c.remove !== undefined || c.move)) {
    const ids = new Set([c.add?.id, c.remove, c.move?.id]);
    for (const p of state.pending) if (ids.has(p.id)) touched.add(p.crc);
    if (c.add) touched.add(c.add.crc);
    if (c.move) touched.add(c.move.crc);
  }
  if (c.add) state.pending = [...state.pending.filter((p) => p.id !== c.add!.id), c.add];
  if (c.remove !== undefined) state.pending = state.pending.filter((p) => p.id !== c.remove);
  if (c.move) state.pending = state.pending.map((p) => (p.id === c.move!.id ? { ...p, crc: c.move!.crc } : p));
  return true;
}
