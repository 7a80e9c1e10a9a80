/** The Redis channel carrying a wall's committed events to the processes that serve hubs (SSE, WebSocket). */
export function wallEventsChannel(prefix: string, wallId: number | null): string {
  return `${prefix}:events:wall:${wallId ?? 'none'}`;
}

/** What every hub receives for each event (docs/api.md §8). */
export interface WallEvent {
  id: string;
  type: string;
  occurredAt: string;
  clientId: number;
  wallId: number | null;
  data: unknown;
}

/** An outbox_event row as the relay and the hubs' replay read it. */
export interface OutboxEventRow {
  event_id: string;
  type: string;
  occurred_at: Date;
  client_id: number;
  wall_id: number | null;
  data: unknown;
}

/** The one mapping from a stored outbox row to the event hubs and consumers receive. */
export function toWallEvent(r: OutboxEventRow): WallEvent {
  return { id: r.event_id, type: r.type, occurredAt: new Date(r.occurred_at).toISOString(), clientId: r.client_id, wallId: r.wall_id, data: r.data };
}
