import type { SessionEventDto, SortBoxDto, SortBoxItemDto } from '../dto/sorting.dto';
import type { SorterColor } from '../domain/colors';
import type { EventType } from './event-types';

/**
 * The `data` of each event type (docs/api.md §8, the types table). The sorting worker's outbox
 * `emit(type, data)` accepts only these pairs, so an event cannot leave a worker with a field missing.
 * Every type is written by a wall's actor (workers/sorting), `wall.updated` included.
 */
export interface EventDataByType {
  'session.started': { session: SessionEventDto };
  'session.renewed': { session: SessionEventDto };
  'session.ended': { session: SessionEventDto };
  /** What the hub needs to light the slot: its crc and position, the sorter's color. */
  'sort-box-item.created': { item: SortBoxItemDto; sortBox: SortBoxDto; color: SorterColor; colorHex: string };
  'sort-box-item.confirmed': { item: SortBoxItemDto; sortBox: SortBoxDto };
  /** `reason`: absent for a sorter's cancel; a forced release, a slot's short button, or the end of the sorter's session (docs/api.md §6). */
  'sort-box-item.cancelled': { item: SortBoxItemDto; sortBox: SortBoxDto; reason?: 'slot-force-released' | 'short-button' | 'session-ended' };
  'sort-box-item.swapped': { item: SortBoxItemDto; from: SortBoxDto; to: SortBoxDto };
  'sort-box.completed': { sortBox: SortBoxDto; orderId: number };
  'sort-box.released': { sortBox: SortBoxDto; orderId: number | null; forced: boolean; userId: number };
  'wall.updated': { wall: unknown; change: 'wall' | 'sort-boxes-attached' | 'sort-box-detached'; sortBoxes?: SortBoxDto[] };
}

export type EventData<T extends EventType> = EventDataByType[T];

// Compile-time check: every event type has its data, and only event types do.
type Assert<T extends true> = T;
export type EveryEventHasData = Assert<[keyof EventDataByType] extends [EventType] ? ([EventType] extends [keyof EventDataByType] ? true : false) : false>;
