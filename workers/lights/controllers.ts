import type { SqlDatabase, SqlRunner } from '../../shared/db/named-sql';
import { uuidv7 } from '../../shared/db/time-ordered-uuid';
import type { EventDataIn } from '../../shared/events/event-schemas';
import type { Logger } from '../../shared/logging/logger';
import type { ControllerReport } from './mqtt/mqtt-driver';
import { insertLightsEvents, onlineControllers, upsertController, wallsOfSerials, type ControllerRow } from './lights.queries';

/** An event of the gateway as the outbox stores it (internal types: docs/api.md §8, hub-only events). */
export type GatewayEvent = {
  [T in 'lights.controller' | 'lights.button']: { clientId: number; wallId: number | null; type: T; data: EventDataIn<T> };
}['lights.controller' | 'lights.button'];

/** Writes the gateway's events to the outbox (one statement): hubs and the audit log get them like any other. */
export async function writeGatewayEvents(db: SqlRunner, events: GatewayEvent[], now = new Date()): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => ({ eventId: uuidv7(), clientId: e.clientId, wallId: e.wallId, type: e.type, occurredAt: now.toISOString(), data: e.data }));
  await insertLightsEvents(db, { events: JSON.stringify(rows) });
}

interface Known extends Omit<ControllerRow, 'lastSeenAt'> {
  lastSeen: number;
  savedAt: number;
  /** A change of state whose row or event could not be written yet (retried at the next tick). */
  unsaved: boolean;
}

/** A controller as hubs and GET /walls/{id}/lights show it. */
export interface ControllerView {
  id: string;
  driver: 'mqtt' | 'tcp';
  online: boolean;
  serialNumbers: string[];
  address: string | null;
  lastSeenAt: string;
}

/**
 * Which controllers are online (docs/lights.md "Controllers"). A controller is online from its first
 * message (status, heartbeat) or connection, and offline when it says so (its last will, a clean stop,
 * a closed TCP connection) or after LIGHTS_CONTROLLER_TIMEOUT_MS without a word. Each change is a
 * `light_controller` row and a `lights.controller` event for every wall holding one of its slots (the
 * hub shows it; /metrics counts the rows); while online, `last_seen_at` is written about twice per
 * timeout, not at every heartbeat.
 */
export class ControllerRegistry {
  private readonly known = new Map<string, Known>();
  private timer: NodeJS.Timeout | undefined;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: SqlDatabase,
    private readonly log: Logger,
    private readonly timeoutMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Controllers a previous gateway left online: heard from again soon, or offline after the timeout. */
  async start(): Promise<void> {
    const now = this.clock();
    // TCP controllers too: their links report them again from the first connection attempt on.
    for (const r of await onlineControllers(this.db, {})) {
      this.known.set(`${r.clientId}/${r.controllerId}`, { ...r, lastSeen: now, savedAt: now, unsaved: false });
    }
    this.timer = setInterval(() => this.expire(), Math.max(100, Math.floor(this.timeoutMs / 4)));
    this.timer.unref();
  }

  report(r: ControllerReport): void {
    const key = `${r.clientId}/${r.controllerId}`;
    const now = this.clock();
    const before = this.known.get(key);
    const serialNumbers = r.serialNumbers ?? before?.serialNumbers ?? [];
    const next: Known = {
      clientId: r.clientId,
      controllerId: r.controllerId,
      driver: r.driver,
      online: r.online,
      serialNumbers,
      address: r.address ?? before?.address ?? null,
      lastSeen: r.online ? now : before?.lastSeen ?? now,
      savedAt: before?.savedAt ?? 0,
      unsaved: before?.unsaved ?? false,
    };
    this.known.set(key, next);
    const changed = !before || before.online !== next.online || next.unsaved;
    const slotsChanged = !before || before.serialNumbers.join('\n') !== serialNumbers.join('\n');
    if (changed || slotsChanged || now - next.savedAt >= this.timeoutMs / 2) this.save(next, changed);
  }

  /** Marks silent MQTT controllers offline (TCP links detect their own silence); retries unsaved changes. */
  private expire(): void {
    const now = this.clock();
    for (const k of this.known.values()) {
      if (k.unsaved) this.save(k, true);
      if (k.online && k.driver === 'mqtt' && now - k.lastSeen > this.timeoutMs) {
        this.log.warn({ controller: k.controllerId, clientId: k.clientId }, 'light controller silent: offline');
        this.report({ clientId: k.clientId, controllerId: k.controllerId, driver: k.driver, online: false });
      }
    }
  }

  private save(k: Known, changed: boolean): void {
    k.savedAt = this.clock();
    k.unsaved = false;
    const view: ControllerView = { id: k.controllerId, driver: k.driver, online: k.online, serialNumbers: k.serialNumbers, address: k.address, lastSeenAt: new Date(k.lastSeen).toISOString() };
    // One at a time, in order: a controller's rows never go back to an older state.
    this.writes = this.writes
      .then(() =>
        this.db.transaction(async (tx) => {
          await upsertController(tx, {
            clientId: k.clientId, controllerId: k.controllerId, driver: k.driver, online: k.online,
            serialNumbers: k.serialNumbers, address: k.address, lastSeenAt: new Date(k.lastSeen),
          });
          if (!changed) return;
          const walls = k.serialNumbers.length ? await wallsOfSerials(tx, { clientId: k.clientId, serialNumbers: k.serialNumbers }) : [];
          const wallIds = walls.length ? walls.map((w) => w.wallId) : [null];
          await writeGatewayEvents(tx, wallIds.map((wallId) => ({ clientId: k.clientId, wallId, type: 'lights.controller', data: { controller: view } })));
        }),
      )
      .then(
        () => (changed ? this.log.info({ controller: k.controllerId, clientId: k.clientId, online: k.online }, `light controller ${k.online ? 'online' : 'offline'}`) : undefined),
        (err: unknown) => {
          const current = this.known.get(`${k.clientId}/${k.controllerId}`);
          if (current) {
            current.unsaved ||= changed;
            current.savedAt = 0;
          }
          this.log.error({ err, controller: k.controllerId }, 'could not record a light controller; retrying');
        },
      );
  }

  /** Waits for the writes in flight (tests, shutdown). */
  flushed(): Promise<void> {
    return this.writes;
  }

  close(): Promise<void> {
    clearInterval(this.timer);
    return this.writes;
  }
}
