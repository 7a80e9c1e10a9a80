/** The Redis channel carrying a wall's committed events to the processes that serve hubs (SSE, WebSocket). */
export function wallEventsChannel(prefix: string, wallId: number | null): string {
  return `${prefix}:events:wall:${wallId ?? 'none'}`;
}

/**
 * The Redis channel on which the API processes hear that walls changed, to drop what their wall view
 * caches hold (services/api/use-cases/walls/wall-view-cache.ts): `w:<wallId>[,<wallId>...]` when a
 * sorting worker answered a command of the wall, and when the outbox relay is about to publish events
 * of the walls; `*` when an API process wrote something outside the commands.
 */
export function wallViewChangesChannel(prefix: string): string {
  return `${prefix}:walls:changed`;
}

/** The changes channel's message for one wall or several (wallViewChangesChannel). */
export function wallViewChangedMessage(wallIds: number | readonly number[]): string {
  return `w:${typeof wallIds === 'number' ? wallIds : wallIds.join(',')}`;
}

/** The changes channel's message for every wall. */
export const EVERY_WALL_VIEW_CHANGED = '*';

/**
 * A message on a wall's channel: the event's outbox id (its place in the wall's order), a '|', and the
 * event as hubs receive it. The id lets a hub connection drop what it has already sent (a relay that
 * took over publishes its predecessor's last events again) and catch up from the outbox after a gap.
 */
export function wallEventMessage(outboxId: string, event: WallEvent): string {
  return `${outboxId}|${JSON.stringify(event)}`;
}

/** The outbox id and the event's JSON of a wall channel message; id null for a message without one. */
export function parseWallEventMessage(message: string): { outboxId: bigint | null; raw: string } {
  const bar = message.indexOf('|');
  if (bar > 0 && bar < 20 && /^\d+$/.test(message.slice(0, bar))) return { outboxId: BigInt(message.slice(0, bar)), raw: message.slice(bar + 1) };
  return { outboxId: null, raw: message };
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

/** A relayed event as the relay and the consumers read it: the outbox row with its id (its relay order). */
export type RelayedRow = OutboxEventRow & { id: string };

/** The one mapping from a stored outbox row to the event hubs and consumers receive. */
export function toWallEvent(r: OutboxEventRow): WallEvent {
  return { id: r.event_id, type: r.type, occurredAt: new Date(r.occurred_at).toISOString(), clientId: r.client_id, wallId: r.wall_id, data: r.data };
}
