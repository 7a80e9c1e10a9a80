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
