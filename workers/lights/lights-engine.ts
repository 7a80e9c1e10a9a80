import type { SqlRunner } from '../../shared/db/named-sql';
import type { Logger } from '../../shared/logging/logger';
import { activeMode, FLASH_MS, nextChangeAt, renderWall, type Flash, type LightColor, type SlotLights, type WallState } from '../../shared/lights/light-model';
import type { RelayedTypedEvent } from '../pipeline/consumer-runner';
import { wallLightStates, wallsWithSlots, type WallStateRow } from './lights.queries';
import { applyLightEvent, READ_AGAIN_TYPES } from './wall-light-state';

/** A short cue on a slot's front light: a wrong slot, the right one, a refused button. */
export type Cue = { crc: string; color: LightColor; itemId?: number };

/** A wall as drivers address it. */
export interface WallKey {
  clientId: number;
  wallId: number;
}

/**
 * Carries lights to one kind of device (MQTT, TCP). The engine hands it the complete picture of a wall
 * (`show`: the driver sends only what changed since it last sent that light, and forgets, turns off and
 * clears, the slots that left the picture), or, after events that change a few slots, only their lights
 * (`update`).
 */
export interface LightsDriver {
  readonly name: string;
  show(wall: WallKey, lights: readonly SlotLights[]): void;
  /**
   * Some slots of a wall the driver was shown, their lights as `show` would send them; the wall's other
   * slots stay as they are. False (nothing done) when the driver holds no picture of the wall: the
   * engine shows it the whole one. A driver without it is always shown the whole wall.
   */
  update?(wall: WallKey, lights: readonly SlotLights[]): boolean;
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

/** A wall's light state and the last event of its command order it holds (an outbox id). */
interface Held {
  state: WallState;
  through: bigint;
}

/**
 * The gateway's core (docs/lights.md "How the gateway works"): it holds each wall's light state, read
 * from PostgreSQL at start, at every resync and whenever an event cannot be applied, and moved by the
 * events of the wall's command order in between; it renders every light with the light model and hands
 * each wall's picture to the drivers. A read returns the outbox id of the last event of the wall's
 * command order it holds (per wall that order is the outbox id order), so an event is applied only
 * when it comes after the state: a batch delivered again, or events a read already holds, change
 * nothing, and events that arrive while the wall is read are applied after the read. Reads are
 * coalesced (walls asked for while a read runs go into the next one) and run one at a time.
 */
export class LightsEngine {
  private readonly drivers: LightsDriver[] = [];
  private readonly flashes = new Map<number, Flash[]>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly held = new Map<number, Held>();
  /** Events of walls with a read due or running, in outbox id order: applied after the read. */
  private readonly waiting = new Map<number, RelayedTypedEvent[]>();
  private dirty = new Map<number, Waiter[]>();
  private reading = new Set<number>();
  /** The read that runs now: settles once its walls are shown (a failure is the next read's to report). */
  private currentRead: Promise<void> = Promise.resolve();
  private running: Promise<void> | null = null;
  private closed = false;
  /**
   * Whether this gateway's consumer holds its position, so the events of every wall reach it. A
   * stand-by (another gateway consumes) holds no state: it reads a wall whenever it shows one.
   */
  private following = true;
  /** Moves when the consumer is taken again: a read begun before cannot be held (events were missed). */
  private epoch = 0;

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

  /**
   * Applies a batch of relayed events (in relay order) to the walls they name and shows those walls,
   * with the flashes given per wall; a wall not held, or an event its state cannot take, is read
   * again. Resolves once every wall is shown.
   */
  apply(events: readonly RelayedTypedEvent[], cues: ReadonlyMap<number, Cue[]> = new Map()): Promise<void> {
    const byWall = new Map<number, RelayedTypedEvent[]>();
    for (const e of events) if (e.wallId !== null) byWall.set(e.wallId, [...(byWall.get(e.wallId) ?? []), e]);
    for (const wallId of cues.keys()) if (!byWall.has(wallId)) byWall.set(wallId, []);
    const reads: number[] = [];
    let afterRead = false;
    for (const [wallId, list] of byWall) {
      this.addFlashes(wallId, cues.get(wallId) ?? []);
      const touched = new Set<string>();
      const outcome = this.applyTo(wallId, list, touched);
      if (outcome === 'applied') this.showHeld(wallId, touched);
      else if (outcome === 'read') reads.push(wallId);
      else afterRead = true;
    }
    const waits = [reads.length ? this.refresh(reads) : null, afterRead ? this.currentRead : null].filter((w) => w !== null);
    return Promise.all(waits).then(() => undefined);
  }

  /**
   * The consumer found its position held by another gateway: the events no longer reach this one, so it
   * holds no wall's state (what it shows it reads) until it consumes again.
   */
  standby(): void {
    this.following = false;
    this.held.clear();
  }

  /**
   * The consumer holds its position and hands over a batch: after a stand-by the walls are read again
   * before they are held (another gateway consumed the events in between).
   */
  consuming(): void {
    if (this.following) return;
    this.following = true;
    this.epoch++;
    this.held.clear();
  }

  /** Flashes slots' fronts for FLASH_MS (a wrong slot, the right one, a refused button), then shows the wall again. */
  flash(wallId: number, cues: Cue[]): Promise<void> {
    return this.apply([], new Map([[wallId, cues]]));
  }

  /** Every wall with slots, read and shown again; then each driver drops the walls it holds that are gone. */
  async resyncAll(): Promise<void> {
    const ids = (await wallsWithSlots(this.db, {})).map((r) => r.id);
    const shown = new Set(ids);
    // In slices: one statement reads many walls, and the drivers start sending before the last is read.
    for (let i = 0; i < ids.length; i += 100) await this.refresh(ids.slice(i, i + 100));
    for (const wallId of this.held.keys()) if (!shown.has(wallId)) this.held.delete(wallId);
    for (const d of this.drivers) d.resynced(shown);
    this.log.debug({ walls: ids.length }, 'every light set again from PostgreSQL');
  }

  /**
   * The wall's events applied to its held state (`applied`); `read` when the wall is to be read again
   * (not held, an event the state cannot take or that asks for a read), `after-read` when a read of
   * the wall is due or running and applies them: events that may come after a read wait for it.
   */
  private applyTo(wallId: number, events: readonly RelayedTypedEvent[], touched: Set<string>): 'applied' | 'read' | 'after-read' {
    const held = this.held.get(wallId);
    const pending = this.dirty.has(wallId) || this.reading.has(wallId);
    let outcome: 'applied' | 'read' | 'after-read' = pending ? 'after-read' : held ? 'applied' : 'read';
    for (const e of events) {
      if (READ_AGAIN_TYPES.has(e.type)) {
        outcome = 'read';
        continue;
      }
      if (outcome !== 'applied') this.wait(wallId, e);
      else if (BigInt(e.outboxId) > held!.through) {
        if (applyLightEvent(held!.state, e, touched)) held!.through = BigInt(e.outboxId);
        else {
          outcome = 'read';
          this.wait(wallId, e);
        }
      }
    }
    // A read due (not yet running) is the read asked for; one running may predate the events (they wait for it).
    return outcome === 'after-read' && this.dirty.has(wallId) ? 'read' : outcome;
  }

  /** Keeps an event for after the wall's read; a batch delivered again adds nothing. */
  private wait(wallId: number, e: RelayedTypedEvent): void {
    const list = this.waiting.get(wallId) ?? [];
    const last = list[list.length - 1];
    if (!last || BigInt(e.outboxId) > BigInt(last.outboxId)) list.push(e);
    this.waiting.set(wallId, list);
  }

  private addFlashes(wallId: number, cues: readonly Cue[]): void {
    if (!cues.length) return;
    const until = this.clock() + FLASH_MS;
    // Ended flashes stay until the wall is shown: their slots are shown again then (show).
    const list = this.flashes.get(wallId) ?? [];
    for (const c of cues) list.push({ ...c, until });
    this.flashes.set(wallId, list);
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
      this.reading = new Set(batch.keys());
      let settle!: () => void;
      this.currentRead = new Promise<void>((resolve) => (settle = resolve));
      const epoch = this.epoch;
      try {
        const rows = await wallLightStates(this.db, { wallIds: [...batch.keys()] });
        const found = new Map(rows.map((r) => [r.wallId, r]));
        const hold = this.following && epoch === this.epoch;
        for (const wallId of batch.keys()) this.install(wallId, found.get(wallId) ?? null, hold);
        for (const waiters of batch.values()) for (const w of waiters) w.resolve();
      } catch (err) {
        // Not read: the walls are not held until a read succeeds (their events keep waiting).
        for (const wallId of batch.keys()) this.held.delete(wallId);
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      } finally {
        this.reading = new Set();
        settle();
      }
    }
  }

  /** A wall as read, with the events that came after the read applied, shown; held unless `hold` is false (a stand-by's read). */
  private install(wallId: number, row: WallStateRow | null, hold: boolean): void {
    const waiting = this.waiting.get(wallId) ?? [];
    this.waiting.delete(wallId);
    if (!row) {
      this.held.delete(wallId);
      this.show(wallId, null);
      return;
    }
    const { through, ...state } = row;
    const held: Held = { state, through: BigInt(through) };
    if (hold) this.held.set(wallId, held);
    else this.held.delete(wallId);
    for (const e of waiting) {
      const id = BigInt(e.outboxId);
      if (id <= held.through) continue;
      // After a read that the event follows, only a malformed history fails here: the read stands (the
      // next resync reads the wall again), and the wall is never read over and over for one event.
      if (!applyLightEvent(held.state, e)) this.log.warn({ wallId, eventId: e.id, type: e.type }, 'an event the light state of its wall cannot take; passed over');
      held.through = id;
    }
    this.show(wallId, held.state);
  }

  /**
   * The held wall shown as it is now (events applied, a timer, a flash); read when it is not held.
   * `touched`: the slots the events changed (only they, and those of its flashes, are rendered again).
   */
  private showHeld(wallId: number, touched?: ReadonlySet<string>): void {
    const held = this.held.get(wallId);
    if (held && !this.dirty.has(wallId) && !this.reading.has(wallId)) this.show(wallId, held.state, touched);
    else this.refresh([wallId]).catch((err: unknown) => this.log.warn({ err, wallId }, 'could not refresh the lights of a wall'));
  }

  /**
   * Shows the wall's picture at `now`. With `touched` (events changed those slots since the last show),
   * only those slots and the slots of its flashes (in progress, or ended since the last show) are
   * rendered and handed to the drivers that can update a picture; everything else of the wall looks as
   * it did at the last show. A wall with a light mode (in force, or ended since) is rendered whole.
   */
  private show(wallId: number, state: WallState | null, touched?: ReadonlySet<string>): void {
    const now = this.clock();
    const all = this.flashes.get(wallId) ?? [];
    const flashes = all.filter((f) => f.until > now);
    if (flashes.length) this.flashes.set(wallId, flashes);
    else this.flashes.delete(wallId);
    clearTimeout(this.timers.get(wallId));
    this.timers.delete(wallId);
    if (!state || state.slots.length === 0) {
      for (const d of this.drivers) this.guard(d, () => d.forget(wallId));
      return;
    }
    let only: Set<string> | null = null;
    if (touched && state.mode === null) {
      only = new Set(touched);
      for (const f of all) only.add(f.crc);
    }
    // A mode that has ended shows as none: rendered whole this once, the wall's later shows may be partial.
    if (state.mode && !activeMode(state.mode, now)) state.mode = null;
    const wall = { clientId: state.clientId, wallId };
    const part = only ? renderWall(state, flashes, now, only) : null;
    let whole: SlotLights[] | null = null;
    for (const d of this.drivers) {
      this.guard(d, () => {
        if (part && d.update?.(wall, part)) return;
        d.show(wall, (whole ??= renderWall(state, flashes, now)));
      });
    }
    const next = nextChangeAt(state, flashes, now);
    if (next !== null) {
      // The picture changes with time alone: shown again from the held state, no read.
      const timer = setTimeout(() => {
        this.timers.delete(wallId);
        this.showHeld(wallId);
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
    this.waiting.clear();
    this.held.clear();
    await Promise.all(this.drivers.map((d) => d.close().catch((err: unknown) => this.log.warn({ err, driver: d.name }, 'closing a light driver failed'))));
  }
}
