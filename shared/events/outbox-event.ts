import { uuidv7 } from '../db/time-ordered-uuid';
import type { AnyEventType, EventDataIn } from './event-schemas';

/**
 * One outbox event as every writer stores it (docs/api.md §8): a fresh event id, the change's client
 * and wall, its time and data. The ORM writes it as an OutboxEvent entity; a wall's actor sends a
 * command's batch of them as JSON with the command's one write (workers/sorting/queries/wall-write.queries.ts).
 */
export interface NewOutboxEvent {
  eventId: string;
  clientId: number;
  wallId: number | null;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** `data` is typed by the event type's schema (shared/events/event-schemas.ts): a field renamed there fails the writer's compile. */
export function newOutboxEvent<T extends AnyEventType>(clientId: number, wallId: number | null, type: T, data: EventDataIn<T>, occurredAt: Date): NewOutboxEvent {
  return { eventId: uuidv7(), clientId, wallId, type, occurredAt, data };
}
