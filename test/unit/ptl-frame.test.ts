import fc from 'fast-check';
import { BLINKS, LIGHT_COLORS, OFF, type Light } from '../../shared/lights/light-model';
import { CMD, decodeDisplay, encodeFrame, FrameReader, FramingError, lightFrame, MAX_BODY } from '../../shared/lights/ptl-frame';

describe('pick-to-light TCP framing', () => {
  it('encodes a display command as documented: length, type 0x60, sequence, command, node, color bits, blink, digits', () => {
    const frame = lightFrame(7, 12, { on: true, colors: ['Yellow'], blink: 'steady', digits: '42' });
    expect([...frame]).toEqual([10, 0, 0x60, 7, CMD.display, 12, 3, 0, 0, 2, 0x34, 0x32]);
    // Two colors alternate; off is the OFF command without data.
    expect([...lightFrame(1, 3, { on: true, colors: ['Red', 'Blue'], blink: 'alternate', digits: '' })].slice(6)).toEqual([1, 4, 3, 0]);
    expect([...lightFrame(2, 3, OFF)]).toEqual([4, 0, 0x60, 2, CMD.off, 3]);
  });

  it('what a node shows after a display frame is the light it was sent (first two colors)', () => {
    const light = fc.record({
      on: fc.constant(true),
      colors: fc.uniqueArray(fc.constantFrom(...LIGHT_COLORS), { minLength: 1, maxLength: 2 }),
      blink: fc.constantFrom(...BLINKS.filter((b) => b !== 'alternate')),
      digits: fc.stringMatching(/^[0-9 -]{0,5}$/),
    });
    fc.assert(
      fc.property(light, fc.integer({ min: 1, max: 250 }), (l, node) => {
        const [frame] = new FrameReader().push(lightFrame(1, node, l as Light));
        expect(frame!.node).toBe(node);
        const shown = decodeDisplay(frame!.data)!;
        expect(shown.colors).toEqual(l.colors);
        expect(shown.blink).toBe(l.colors.length > 1 ? 'alternate' : l.blink);
        expect(shown.digits).toBe(l.digits);
      }),
    );
  });

  it('splits a byte stream into frames however it is cut', () => {
    const frames = [lightFrame(1, 1, OFF), lightFrame(2, 2, { on: true, colors: ['Green'], blink: 'fast', digits: '12345' }), encodeFrame({ seq: 3, cmd: CMD.confirm, node: 9, data: Buffer.alloc(0) })];
    const stream = Buffer.concat(frames);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 8 }), (cuts) => {
        const reader = new FrameReader();
        const got = [];
        let at = 0;
        for (const c of [...cuts.sort((x, y) => x - y), stream.length]) {
          got.push(...reader.push(stream.subarray(at, c)));
          at = c;
        }
        expect(got.map((f) => [f.seq, f.cmd, f.node])).toEqual([[1, CMD.off, 1], [2, CMD.display, 2], [3, CMD.confirm, 9]]);
      }),
    );
  });

  it('a stream out of step is a FramingError (the connection is dropped and opened again)', () => {
    expect(() => new FrameReader().push(Buffer.from([2, 0, 0x60, 0]))).toThrow(FramingError);
    expect(() => new FrameReader().push(Buffer.from([MAX_BODY + 1, 0]))).toThrow(FramingError);
    expect(() => new FrameReader().push(Buffer.from([4, 0, 0x61, 0, 0, 0]))).toThrow(FramingError);
    expect(decodeDisplay(Buffer.from([9, 0, 0, 0]))).toBeNull();
    expect(decodeDisplay(Buffer.from([1, 0, 0, 7, 0x31]))).toBeNull();
  });
});
