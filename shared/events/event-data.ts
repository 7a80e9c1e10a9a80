import type { EventType, InternalEventType } from './event-types';
import type { EventDataIn, InternalEventType as SchemaInternalType, PublicEventType } from './event-schemas';

/**
 * The `data` of each event type as its writer gives it, inferred from the type's schema
 * (shared/events/event-schemas.ts, docs/api.md §8). The sorting worker's outbox `emit(type, data)`
 * accepts only these pairs, so an event cannot leave a worker with a field missing.
 */
export type EventDataByType = { [T in EventType]: EventDataIn<T> };

export type EventData<T extends EventType> = EventDataByType[T];

// Compile-time check: the type lists of event-types.ts and the schemas name the same types.
type Assert<T extends true> = T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type EveryEventHasData = Assert<Same<EventType, PublicEventType>>;
export type EveryInternalEventHasData = Assert<Same<InternalEventType, SchemaInternalType>>;
