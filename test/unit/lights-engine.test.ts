import type { NamedStatement, SqlRunner } from '../../shared/db/named-sql';
import type { AnyEventType } from '../../shared/events/event-schemas';
import { decodeEvent } from '../../shared/events/event-schemas';
import { createLogger } from '../../shared/logging/logger';
import { COMPLETE_COLOR, OFF, type SlotLights } from '../../shared/lights/light-model';
import type { RelayedTypedEvent } from '../../workers/pipeline/consumer-runner';
import { LightsEngine, type LightsDriver, type WallKey } from '../../workers/lights/lights-engine';
import type { WallStateRow } from '../../workers/lights/lights.queries';
import { sampleData } from '../support/event-samples';

/*
 * The light gateway's engine without I/O: a runner that answers the wall read from a row the test
 * sets (and counts the reads), a driver that keeps the last picture of each wall. The samples' wall 9
 * has slot 583032E0 (position 4) and slot 11111111 (position 7).
 */
const SLOTS = [
  { serialNumber: 'SN-1', crc: '583032E0', position: 4, status: 'Empty' as const },
  { serialNumber: 'SN-2', crc: '11111111', position: 7, status: 'Empty' as const },
];

class WallReads implements SqlRunner {
  reads = 0;
  row: WallStateRow = { wallId: 9, clientId: 1, slots: SLOTS, pending: [], mode: null, through: '0' };
  /** Held until released: a read in flight while events arrive. */
  gate: Promise<void> | null = null;
  async run<R>(statement: NamedStatement): Promise<R[]> {
    if (statement.name !== 'lights-wall-states') throw new Error(`unexpected statement ${statement.name}`);
    this.reads++;
    const row = structuredClone(this.row);
    if (this.gate) await this.gate;
    return [row as R];
  }
}

class Pictures implements LightsDriver {
  readonly name = 'test';
  last = new Map<number, readonly SlotLights[]>();
  show(wall: WallKey, lights: readonly SlotLights[]): void {
    this.last.set(wall.wallId, lights);
  }
  forget(wallId: number): void {
    this.last.delete(wallId);
  }
  resynced(): void {}
  async close(): Promise<void> {}
}

let seq = 0;
function event(type: AnyEventType, outboxId: number, over: unknown = {}): RelayedTypedEvent {
  const e = decodeEvent({ id: `e-${++seq}`, type, occurredAt: new Date().toISOString(), clientId: 1, wallId: 9, data: sampleData(type, over) });
  return { ...e, outboxId: String(outboxId) };
}

function setup() {
  const db = new WallReads();
  const engine = new LightsEngine(db, createLogger('silent', 'test'));
  const driver = new Pictures();
  engine.addDriver(driver);
  const slot = (crc: string) => driver.last.get(9)!.find((l) => l.crc === crc)!;
  return { db, engine, slot };
}

describe('light gateway engine: a wall read once, then moved by its events', () => {
  it('applies scans, confirms, completion and release from the events, without reading the wall again', async () => {
    const { db, engine, slot } = setup();
    await engine.refresh([9]);
    expect(db.reads).toBe(1);
    expect(slot('583032E0').front).toEqual(OFF);

    await engine.apply([event('sort-box-item.created', 10)]);
    expect(slot('583032E0').front).toEqual({ on: true, colors: ['Red'], blink: 'steady', digits: '1' });
    await engine.apply([event('sort-box-item.swapped', 11, { item: { crc: '11111111' } })]);
    expect(slot('583032E0').front).toEqual(OFF);
    expect(slot('11111111').front.colors).toEqual(['Red']);
    await engine.apply([
      event('sort-box-item.confirmed', 12, { item: { crc: '11111111' }, sortBox: { crc: '11111111', status: 'Sorting' } }),
      event('sort-box.completed', 13, { sortBox: { crc: '11111111', status: 'Complete' } }),
    ]);
    expect(slot('11111111').front).toEqual(OFF);
    expect(slot('11111111').back).toEqual({ on: true, colors: [COMPLETE_COLOR], blink: 'steady', digits: '' });
    await engine.apply([event('sort-box.released', 14, { sortBox: { crc: '11111111' } })]);
    expect(slot('11111111').back).toEqual(OFF);
    expect(db.reads).toBe(1);
    await engine.close();
  });

  it('changes nothing for an event the state already holds: a batch delivered again, or one the read held', async () => {
    const { db, engine, slot } = setup();
    db.row = { ...db.row, through: '20' };
    await engine.refresh([9]);
    await engine.apply([event('sort-box-item.created', 20)]);
    expect(slot('583032E0').front).toEqual(OFF);
    await engine.apply([event('sort-box-item.created', 21)]);
    await engine.apply([event('sort-box-item.cancelled', 22)]);
    // 21 delivered again after 22: the scan stays cancelled.
    await engine.apply([event('sort-box-item.created', 21)]);
    expect(slot('583032E0').front).toEqual(OFF);
    expect(db.reads).toBe(1);
    await engine.close();
  });

  it('applies the events that arrive during a read after it, those after what the read holds only', async () => {
    const { db, engine, slot } = setup();
    let release!: () => void;
    db.gate = new Promise((r) => (release = r));
    // The read holds event 30 (a scan in slot 583032E0) but not 31 (the scan's cancel).
    db.row = { ...db.row, through: '30', pending: [{ id: 31, crc: '583032E0', color: 'Red', units: 1, createdAt: 1 }] };
    const read = engine.refresh([9]);
    const applied = engine.apply([event('sort-box-item.created', 30), event('sort-box-item.cancelled', 31)]);
    release();
    await Promise.all([read, applied]);
    expect(slot('583032E0').front).toEqual(OFF);
    expect(db.reads).toBe(1);
    await engine.close();
  });

  it('holds nothing as a stand-by (another gateway consumes): it reads what it shows, and reads again once it consumes', async () => {
    const { db, engine, slot } = setup();
    await engine.refresh([9]);
    expect(slot('583032E0').front).toEqual(OFF);
    engine.standby();
    // Meanwhile the active gateway takes a scan in slot 583032E0 (event 50): this one never sees it.
    db.row = { ...db.row, through: '50', pending: [{ id: 50, crc: '583032E0', color: 'Red', units: 1, createdAt: 1 }] };
    // A button press reaches the stand-by: its flash shows the wall as it is now, not as first read.
    await engine.flash(9, [{ crc: '11111111', color: 'Red' }]);
    expect(db.reads).toBe(2);
    expect(slot('583032E0').front.colors).toEqual(['Red']);
    await engine.flash(9, []);
    expect(db.reads).toBe(3);
    // Taking the position over after events 51..60 went to the other gateway (the scan cancelled at 55):
    // the wall is read again before the first batch is applied, and then held.
    db.row = { ...db.row, through: '60', pending: [] };
    engine.consuming();
    await engine.apply([event('sort-box-item.created', 61)]);
    expect(db.reads).toBe(4);
    expect(slot('583032E0').front.colors).toEqual(['Red']);
    await engine.apply([event('sort-box-item.cancelled', 62)]);
    expect(slot('583032E0').front).toEqual(OFF);
    expect(db.reads).toBe(4);
    await engine.close();
  });

  it('reads the wall again for a wall edit, a light mode, or an event naming a slot it does not hold', async () => {
    const { db, engine } = setup();
    await engine.refresh([9]);
    await engine.apply([event('wall.updated', 40)]);
    expect(db.reads).toBe(2);
    await engine.apply([event('lights.mode', 3)]);
    expect(db.reads).toBe(3);
    await engine.apply([event('sort-box.completed', 41, { sortBox: { crc: '22222222', status: 'Complete' } })]);
    expect(db.reads).toBe(4);
    // After that read the event is passed over, not read for again and again.
    await engine.apply([event('sort-box-item.created', 42)]);
    expect(db.reads).toBe(4);
    await engine.close();
  });
});

/** A driver that takes a wall's changed slots alone when it can (`update`), keeping the rest of its picture. */
class Updates extends Pictures {
  updated: number[] = [];
  update(wall: WallKey, lights: readonly SlotLights[]): boolean {
    const before = this.last.get(wall.wallId);
    if (!before) return false;
    const changed = new Map(lights.map((l) => [l.crc, l]));
    this.last.set(wall.wallId, before.map((l) => changed.get(l.crc) ?? l));
    this.updated.push(lights.length);
    return true;
  }
}

describe('light gateway engine: only the slots a batch changes are rendered again', () => {
  it('keeps a driver that takes changed slots alone in the same picture as one shown the whole wall, through scans, moves, flashes ending and releases', async () => {
    const db = new WallReads();
    db.row = { ...db.row, slots: [...SLOTS, { serialNumber: 'SN-3', crc: '33333333', position: 9, status: 'Sorting' }] };
    let now = 1_000_000;
    const engine = new LightsEngine(db, createLogger('silent', 'test'), () => now);
    const whole = new Pictures();
    const parts = new Updates();
    engine.addDriver(whole);
    engine.addDriver(parts);
    const same = () => expect(parts.last.get(9)).toEqual(whole.last.get(9));
    await engine.refresh([9]);
    same();

    await engine.apply([event('sort-box-item.created', 10)]);
    same();
    expect(parts.updated).toEqual([1]);
    expect(parts.last.get(9)!.find((l) => l.crc === '583032E0')!.front.colors).toEqual(['Red']);
    // The pending scan moves to slot 11111111: both slots change.
    await engine.apply([event('sort-box-item.swapped', 11, { item: { crc: '11111111' } })]);
    same();
    expect(parts.updated.at(-1)).toBe(2);
    // A wrong-slot cue on slot 33333333 in the pending item's color, then the item confirmed (the flash
    // takes the color the item had while it was pending, the cue's own after).
    await engine.flash(9, [{ crc: '33333333', color: 'White', itemId: 31 }]);
    same();
    expect(parts.last.get(9)!.find((l) => l.crc === '33333333')!.front).toEqual({ on: true, colors: ['Red'], blink: 'fast', digits: '' });
    await engine.apply([event('sort-box-item.confirmed', 12, { item: { crc: '11111111' }, sortBox: { crc: '11111111', status: 'Sorting' } })]);
    same();
    // The flash has ended by the next batch (its timer has not fired yet): its slot is shown again too.
    now += 10_000;
    await engine.apply([event('sort-box.completed', 13, { sortBox: { crc: '583032E0', status: 'Complete' } })]);
    same();
    expect(parts.last.get(9)!.find((l) => l.crc === '33333333')!.front).toEqual(OFF);
    await engine.apply([event('sort-box.released', 14, { sortBox: { crc: '583032E0' } })]);
    same();
    // Every batch went to the updating driver as its changed slots, never the whole wall of three.
    expect(parts.updated.every((n) => n < 3)).toBe(true);
    expect(parts.updated.length).toBe(6);
    expect(db.reads).toBe(1);
    await engine.close();
  });
});
