import type { SqlRunner } from '../../shared/db/named-sql';
import type { Logger } from '../../shared/logging/logger';
import { FLASH_MS, nextChangeAt, renderWall, type Flash, type LightColor, type SlotLights, type WallState } from '../../shared/lights/light-model';
import { wallLightStates, wallsWithSlots } from './lights.queries';

/** A wall as drivers address it. */
export interface WallKey {
  clientId: number;
  wallId: number;
}

/**
 * Carries lights to one kind of device (MQTT, TCP). The engine hands it the complete picture of a wall
 * each time; the driver sends only what changed since it last sent that light, and forgets (turns off
 * and clears) the slots that left the picture.
 */
export interface LightsDriver {
  readonly name: string;
  show(wall: WallKey, lights: readonly SlotLights[]): void;
  /** The wall is gone (deleted, or no slot left): everything the driver holds of it goes dark. */
  forget(wallId: number): void;
  /** After a full resync: walls the driver holds that were not shown are gone. */
  resynced(shown: ReadonlySet<number>): void;
  close(): Promise<void>;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * The gateway's core (docs/lights.md "How the gateway works"): it reads walls' state from PostgreSQL,
 * renders every light with the light model and hands each wall's picture to the drivers. Every picture
 * comes from a fresh read, so a light is never set from an event alone: events, timers and reconnects
 * only say which walls to read again. Refreshes are coalesced (walls asked for while a read runs go
 * into the next one) and run one at a time, so pictures reach the drivers in the order they were read.
 */
export class LightsEngine {
  private readonly drivers: LightsDriver[] = [];
  private readonly flashes = new Map<number, Flash[]>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private dirty = new Map<number, Waiter[]>();
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly db: SqlRunner,
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  addDriver(driver: LightsDriver): void {
    this.drivers.push(driver);
  }

  /** Reads the walls again and shows them; resolves once they are shown, rejects if the read failed. */
  refresh(wallIds: Iterable<number>): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const id of new Set(wallIds)) {
      waits.push(
        new Promise<void>((resolve, reject) => {
          const list = this.dirty.get(id) ?? [];
          list.push({ resolve, reject });
          this.dirty.set(id, list);
        }),
      );
    }
    if (waits.length) this.kick();
    return Promise.all(waits).then(() => undefined);
  }

  /** Flashes slots' fronts for FLASH_MS (a wrong slot, the right one, a refused button), then shows the wall again. */
  flash(wallId: number, cues: { crc: string; color: LightColor; itemId?: number }[]): Promise<void> {
    const until = this.clock() + FLASH_MS;
    const list = (this.flashes.get(wallId) ?? []).filter((f) => f.until > this.clock());
    for (const c of cues) list.push({ ...c, until });
    this.flashes.set(wallId, list);
    return this.refresh([wallId]);
  }

  /** Every wall with slots, read and shown again; then each driver drops the walls it holds that are gone. */
  async resyncAll(): Promise<void> {
    const ids = (await wallsWithSlots(this.db, {})).map((r) => r.id);
    const shown = new Set(ids);
    // In slices: one statement reads many walls, and the drivers start sending before the last is read.
    for (let i = 0; i < ids.length; i += 100) await this.refresh(ids.slice(i, i + 100));
    for (const d of this.drivers) d.resynced(shown);
    this.log.debug({ walls: ids.length }, 'every light set again from PostgreSQL');
  }

  private kick(): void {
    if (this.running || this.closed) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.dirty.size && !this.closed) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.dirty.size && !this.closed) {
      const batch = this.dirty;
      this.dirty = new Map();
      try {
        const rows = await wallLightStates(this.db, { wallIds: [...batch.keys()] });
        const found = new Map(rows.map((r) => [r.wallId, r]));
        for (const wallId of batch.keys()) this.show(wallId, found.get(wallId) ?? null);
        for (const waiters of batch.values()) for (const w of waiters) w.resolve();
      } catch (err) {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      }
    }
  }

  private show(wallId: number, state: WallState | null): void {
    const now = this.clock();
    const flashes = (this.flashes.get(wallId) ?? []).filter((f) => f.until > now);
    if (flashes.length) this.flashes.set(wallId, flashes);
    else this.flashes.delete(wallId);
    clearTimeout(this.timers.get(wallId));
    this.timers.delete(wallId);
    if (!state || state.slots.length === 0) {
      for (const d of this.drivers) this.guard(d, () => d.forget(wallId));
      return;
    }
    const lights = renderWall(state, flashes, now);
    for (const d of this.drivers) this.guard(d, () => d.show({ clientId: state.clientId, wallId }, lights));
    const next = nextChangeAt(state, flashes, now);
    if (next !== null) {
      const timer = setTimeout(() => {
        this.timers.delete(wallId);
        this.refresh([wallId]).catch((err: unknown) => this.log.warn({ err, wallId }, 'could not refresh the lights of a wall'));
      }, Math.max(0, next - now) + 5);
      timer.unref();
      this.timers.set(wallId, timer);
    }
  }

  /** One driver's failure must not keep the others from showing the wall. */
  private guard(driver: LightsDriver, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err, driver: driver.name }, 'a light driver failed to show a wall');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.running?.catch(() => undefined);
    for (const waiters of this.dirty.values()) for (const w of waiters) w.reject(new Error('the light gateway is shutting down'));
    this.dirty.clear();
    await Promise.all(this.drivers.map((d) => d.close().catch((err: unknown) => this.log.warn({ err, driver: d.name }, 'closing a light driver failed'))));
  }
}
