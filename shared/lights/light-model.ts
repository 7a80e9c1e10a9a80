import { colorHex, type SorterColor } from '../domain/colors';
import type { SlotStatus } from '../domain/statuses';

/*
 * The light model (docs/lights.md "What each light shows"): a pure function from a wall's state to the
 * state of every light of the wall. Each slot has a front light on the sorter's side (a color, steady,
 * blinking or alternating, and a digit display) and a back light on the shipper's side. Drivers (MQTT,
 * TCP) only carry the answer to the devices; every rule of what a light shows is here.
 */

/** What an RGB slot LED can show: the six sorter colors and white. */
export const LIGHT_COLORS = ['Red', 'Blue', 'Yellow', 'Green', 'Magenta', 'Cyan', 'White'] as const;
export type LightColor = (typeof LIGHT_COLORS)[number];

/** `alternate`: the colors in turn (two or more sorters wait in one slot). */
export const BLINKS = ['steady', 'slow', 'fast', 'alternate'] as const;
export type Blink = (typeof BLINKS)[number];

export interface Light {
  on: boolean;
  /** The colors shown, first one first; empty when off. */
  colors: LightColor[];
  blink: Blink;
  /** The digit display, at most DIGITS_WIDTH characters; '' is blank. */
  digits: string;
}

export const DIGITS_WIDTH = 5;
export const OFF: Light = Object.freeze({ on: false, colors: [], blink: 'steady', digits: '' }) as Light;

export function lightRgb(color: LightColor): string {
  return color === 'White' ? '#FFFFFF' : colorHex(color as SorterColor);
}

export const LIGHT_MODES = ['normal', 'test', 'show-address'] as const;
export type LightMode = (typeof LIGHT_MODES)[number];

/** A light test or the show-address mode of a wall, until `until` (epoch ms). */
export interface WallMode {
  mode: Exclude<LightMode, 'normal'>;
  startedAt: number;
  until: number;
}

export interface SlotState {
  serialNumber: string;
  crc: string;
  position: number;
  status: SlotStatus;
}

export interface PendingState {
  id: number;
  crc: string;
  color: SorterColor;
  units: number;
  /** Epoch ms: the order pending items are shown and confirmed in. */
  createdAt: number;
}

export interface WallState {
  clientId: number;
  wallId: number;
  slots: SlotState[];
  /** The wall's scans waiting for confirmation, in any order. */
  pending: PendingState[];
  mode: WallMode | null;
}

/** A short cue on one slot's front light: a wrong slot, the right one, a refused button. */
export interface Flash {
  crc: string;
  color: LightColor;
  /** Epoch ms. */
  until: number;
  /** Show this pending item's color instead of `color` while the item is pending (the right slot of a wrong-slot scan). */
  itemId?: number;
}

export interface SlotLights {
  serialNumber: string;
  crc: string;
  position: number;
  front: Light;
  back: Light;
}

/** How long a flash lasts; one step of the light test. */
export const FLASH_MS = 2500;
export const TEST_STEP_MS = 1000;
/** The light test shows each LED channel alone, then all together, on every light, digits all lit. */
export const TEST_COLORS: readonly LightColor[] = ['Red', 'Green', 'Blue', 'White'];
/** The shipper's cue on the back of a complete slot: no sorter works on that side, so one fixed color. */
export const COMPLETE_COLOR: LightColor = 'Green';

const digitsOf = (n: number) => String(n).slice(-DIGITS_WIDTH);

/** The mode in force at `now`, or null (normal). */
export function activeMode(mode: WallMode | null, now: number): WallMode | null {
  return mode && now < mode.until ? mode : null;
}

const flashLight = (flash: Flash): Light => ({ on: true, colors: [flash.color], blink: 'fast', digits: '' });

function frontOf(pending: PendingState[], flash: Flash | undefined): Light {
  if (flash) return flashLight(flash);
  if (pending.length === 0) return OFF;
  const colors: LightColor[] = [];
  let units = 0;
  for (const p of pending) {
    units += p.units;
    if (!colors.includes(p.color)) colors.push(p.color);
  }
  return { on: true, colors, blink: colors.length > 1 ? 'alternate' : 'steady', digits: digitsOf(units) };
}

function backOf(slot: SlotState): Light {
  return slot.status === 'Complete' ? { on: true, colors: [COMPLETE_COLOR], blink: 'steady', digits: '' } : OFF;
}

/**
 * Every light of the wall at `now`:
 * - normal: a slot with pending scans lights its front in their sorters' colors (oldest first; two or
 *   more colors alternate) with the units to put on the digits; otherwise the front is dark. A flash in
 *   progress overrides the front (fast blink). A Complete slot lights its back (the shipper's cue).
 * - `test`: every light, front and back, steps through red, green, blue and white, digits all lit.
 * - `show-address`: every front and back light white, steady, showing the slot's position; a flash
 *   (a button pressed: a button test) shows on its front.
 * With `only` (slot crcs), the lights of those slots alone, in the wall's slot order: each exactly as in
 * the whole picture (a slot's lights depend on its own status, pending scans and flash, and the mode).
 */
export function renderWall(state: WallState, flashes: readonly Flash[], now: number, only?: ReadonlySet<string>): SlotLights[] {
  const mode = activeMode(state.mode, now);
  const pendingBySlot = new Map<string, PendingState[]>();
  const pending = only ? state.pending.filter((p) => only.has(p.crc)) : [...state.pending];
  for (const p of pending.sort((a, b) => a.createdAt - b.createdAt || a.id - b.id)) {
    const list = pendingBySlot.get(p.crc);
    if (list) list.push(p);
    else pendingBySlot.set(p.crc, [p]);
  }
  // The pending item a flash takes its color from may wait in another slot: every pending item counts.
  let colorOfItem: Map<number, SorterColor> | null = null;
  const flashBySlot = new Map<string, Flash>();
  // The latest flash of a slot wins.
  for (const f of flashes) {
    if (f.until <= now || (only && !only.has(f.crc)) || (flashBySlot.get(f.crc)?.until ?? 0) > f.until) continue;
    if (f.itemId !== undefined) colorOfItem ??= new Map(state.pending.map((p) => [p.id, p.color]));
    flashBySlot.set(f.crc, f.itemId === undefined ? f : { ...f, color: colorOfItem!.get(f.itemId) ?? f.color });
  }
  const slots = only ? state.slots.filter((s) => only.has(s.crc)) : state.slots;
  if (mode?.mode === 'test') {
    const step = Math.floor(Math.max(0, now - mode.startedAt) / TEST_STEP_MS) % TEST_COLORS.length;
    return slots.map((slot) => {
      const light: Light = { on: true, colors: [TEST_COLORS[step]!], blink: 'steady', digits: '8'.repeat(DIGITS_WIDTH) };
      return { serialNumber: slot.serialNumber, crc: slot.crc, position: slot.position, front: light, back: light };
    });
  }
  if (mode?.mode === 'show-address') {
    return slots.map((slot) => {
      const light: Light = { on: true, colors: ['White'], blink: 'steady', digits: digitsOf(slot.position) };
      // A button pressed meanwhile flashes its slot (a button test).
      const flash = flashBySlot.get(slot.crc);
      return { serialNumber: slot.serialNumber, crc: slot.crc, position: slot.position, front: flash ? flashLight(flash) : light, back: light };
    });
  }
  return slots.map((slot) => ({
    serialNumber: slot.serialNumber,
    crc: slot.crc,
    position: slot.position,
    front: frontOf(pendingBySlot.get(slot.crc) ?? NONE_PENDING, flashBySlot.get(slot.crc)),
    back: backOf(slot),
  }));
}

const NONE_PENDING: PendingState[] = [];

/** When the picture changes with time alone (a flash ends, a test step, a mode ends): epoch ms, or null. */
export function nextChangeAt(state: WallState, flashes: readonly Flash[], now: number): number | null {
  let next = Infinity;
  for (const f of flashes) if (f.until > now) next = Math.min(next, f.until);
  const mode = activeMode(state.mode, now);
  if (mode) {
    next = Math.min(next, mode.until);
    if (mode.mode === 'test') next = Math.min(next, mode.startedAt + (Math.floor(Math.max(0, now - mode.startedAt) / TEST_STEP_MS) + 1) * TEST_STEP_MS);
  }
  return next === Infinity ? null : next;
}

export function sameLight(a: Light, b: Light): boolean {
  return a.on === b.on && a.blink === b.blink && a.digits === b.digits && a.colors.length === b.colors.length && a.colors.every((c, i) => c === b.colors[i]);
}
