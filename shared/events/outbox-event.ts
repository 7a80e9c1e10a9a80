import { randomUUID } from 'node:crypto';
import type { EventType } from './event-types';

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

export function newOutboxEvent(clientId: number, wallId: number | null, type: EventType, data: Record<string, unknown>, occurredAt: Date): NewOutboxEvent {
  return { eventId: randomUUID(), clientId, wallId, type, occurredAt, data };
}
