import type { Blink, Light, LightColor } from './light-model';

/*
 * The binary pick-to-light protocol over TCP (docs/lights.md "TCP pick-to-light controllers"), in the
 * style of the common controller families (ABLEPick and alike): a controller drives a bus of nodes,
 * each a light with a digit display and buttons, by node address; the host sends display and off
 * commands, the controller reports confirm and short presses. The controller listens; the gateway
 * connects to it.
 *
 * Every frame, both ways (integers little-endian):
 *   offset 0  u16  length: the bytes after this field (4 + data), 4..MAX_BODY
 *          2  u8   0x60, the pick-to-light frame type
 *          3  u8   sequence number chosen by the host, echoed in the controller's ACK
 *          4  u8   command
 *          5  u8   node address, 1..250 (0: the controller itself)
 *          6  ...  data
 *
 * Host → controller:
 *   0x00 DISPLAY  data: color u8, color2 u8, blink u8, n u8, n ASCII characters for the display (n ≤ 6)
 *   0x01 OFF      no data
 *   0x7E STATUS   node 0, no data: the heartbeat
 * Controller → host:
 *   0x06 CONFIRM  the node's confirm button was pressed
 *   0x07 SHORT    the node's short (Fn) button was pressed
 *   0x7F ACK      node and sequence of a host command; data: u8 result (0 done, 1 unknown node, 2 bad command)
 *   0x7E STATUS   node 0; data: u8 n, then n node addresses: the nodes on its bus
 *
 * Colors are the LED's channels as bits (red 1, green 2, blue 4): 1 red, 2 green, 3 yellow, 4 blue,
 * 5 magenta, 6 cyan, 7 white, 0 none. Blink: 0 steady, 1 slow, 2 fast, 3 alternate color and color2.
 */

export const FRAME_TYPE = 0x60;
export const MAX_BODY = 64;
export const MAX_DIGITS = 6;

export const CMD = {
  display: 0x00,
  off: 0x01,
  confirm: 0x06,
  short: 0x07,
  status: 0x7e,
  ack: 0x7f,
} as const;

export const ACK = { done: 0, unknownNode: 1, badCommand: 2 } as const;

export interface Frame {
  seq: number;
  cmd: number;
  node: number;
  data: Buffer;
}

export const COLOR_CODES: Readonly<Record<LightColor, number>> = { Red: 1, Green: 2, Yellow: 3, Blue: 4, Magenta: 5, Cyan: 6, White: 7 };
export const BLINK_CODES: Readonly<Record<Blink, number>> = { steady: 0, slow: 1, fast: 2, alternate: 3 };
const COLOR_BY_CODE = new Map(Object.entries(COLOR_CODES).map(([k, v]) => [v, k as LightColor]));
const BLINK_BY_CODE = new Map(Object.entries(BLINK_CODES).map(([k, v]) => [v, k as Blink]));

export function encodeFrame(f: Frame): Buffer {
  if (f.data.length + 4 > MAX_BODY) throw new Error(`frame too long: ${f.data.length} data bytes`);
  const buf = Buffer.alloc(6 + f.data.length);
  buf.writeUInt16LE(4 + f.data.length, 0);
  buf.writeUInt8(FRAME_TYPE, 2);
  buf.writeUInt8(f.seq & 0xff, 3);
  buf.writeUInt8(f.cmd, 4);
  buf.writeUInt8(f.node, 5);
  f.data.copy(buf, 6);
  return buf;
}

/** A light as a DISPLAY or OFF frame for one node (alternating shows the first two colors). */
export function lightFrame(seq: number, node: number, light: Light): Buffer {
  if (!light.on || light.colors.length === 0) return encodeFrame({ seq, cmd: CMD.off, node, data: Buffer.alloc(0) });
  const digits = Buffer.from(light.digits.slice(-MAX_DIGITS).replace(/[^\x20-\x7e]/g, ' '), 'ascii');
  const data = Buffer.alloc(4 + digits.length);
  data.writeUInt8(COLOR_CODES[light.colors[0]!], 0);
  data.writeUInt8(light.colors[1] ? COLOR_CODES[light.colors[1]] : 0, 1);
  data.writeUInt8(BLINK_CODES[light.colors.length > 1 ? 'alternate' : light.blink === 'alternate' ? 'steady' : light.blink], 2);
  data.writeUInt8(digits.length, 3);
  digits.copy(data, 4);
  return encodeFrame({ seq, cmd: CMD.display, node, data });
}

/** What a node shows after a DISPLAY frame's data (the simulated controller keeps it). */
export function decodeDisplay(data: Buffer): Light | null {
  if (data.length < 4) return null;
  const [c1, c2, blinkCode, n] = [data.readUInt8(0), data.readUInt8(1), data.readUInt8(2), data.readUInt8(3)];
  const first = COLOR_BY_CODE.get(c1);
  const blink = BLINK_BY_CODE.get(blinkCode);
  if (!first || !blink || n > MAX_DIGITS || data.length !== 4 + n) return null;
  const second = COLOR_BY_CODE.get(c2);
  return { on: true, colors: second && blink === 'alternate' ? [first, second] : [first], blink, digits: data.subarray(4).toString('ascii') };
}

export class FramingError extends Error {}

/**
 * Splits a TCP byte stream into frames. A length out of bounds or a wrong type byte means the
 * stream is out of step: FramingError, and the connection is dropped and opened again.
 */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const frames: Frame[] = [];
    while (this.buf.length >= 2) {
      const len = this.buf.readUInt16LE(0);
      if (len < 4 || len > MAX_BODY) throw new FramingError(`bad frame length ${len}`);
      if (this.buf.length < 2 + len) break;
      if (this.buf.readUInt8(2) !== FRAME_TYPE) throw new FramingError(`bad frame type 0x${this.buf.readUInt8(2).toString(16)}`);
      frames.push({ seq: this.buf.readUInt8(3), cmd: this.buf.readUInt8(4), node: this.buf.readUInt8(5), data: Buffer.from(this.buf.subarray(6, 2 + len)) });
      this.buf = this.buf.subarray(2 + len);
    }
    return frames;
  }
}
