import { SheddingCommandBus } from '../../services/api/commands/overload-shedder';
import type { CommandBus } from '../../shared/queue/command-bus';
import { AppError } from '../../shared/errors/app-error';

/** A bus whose commands finish when the test says so. */
function manualBus(): CommandBus & { finish(n: number): void; waiting: number } {
  const pending: (() => void)[] = [];
  return {
    get waiting() {
      return pending.length;
    },
    execute: (() => new Promise<unknown>((resolve) => pending.push(() => resolve({ ok: true })))) as CommandBus['execute'],
    finish(n: number) {
      for (const f of pending.splice(0, n)) f();
    },
    close: async () => undefined,
  };
}

const payload = {} as never;
const run = (bus: CommandBus) => bus.execute('x' as never, payload);

describe('SheddingCommandBus', () => {
  it('admits up to its capacity, then answers 503 with Retry-After at once', async () => {
    const inner = manualBus();
    const bus = new SheddingCommandBus(inner, { maxWaitMs: 1000, minInFlight: 3, initialRatePerSecond: 0, now: () => 0 });
    const admitted = [0, 1, 2].map(() => run(bus));
    const started = performance.now();
    const shed = await run(bus).then(
      () => null,
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(100);
    expect(shed).toBeInstanceOf(AppError);
    expect((shed as AppError).code).toBe('service-unavailable');
    expect((shed as AppError).headers).toEqual({ 'Retry-After': '1' });
    expect(inner.waiting).toBe(3);
    inner.finish(3);
    await Promise.all(admitted);
  });

  it('admits work in hand (confirm, release) beyond the capacity that sheds new scans', async () => {
    const inner = manualBus();
    const bus = new SheddingCommandBus(inner, { maxWaitMs: 1000, minInFlight: 2, initialRatePerSecond: 0, now: () => 0 });
    const scans = [0, 1].map(() => bus.execute('item.scan', payload));
    await expect(bus.execute('item.scan', payload)).rejects.toMatchObject({ code: 'service-unavailable' });
    const finishing = [bus.execute('item.confirm', payload), bus.execute('slot.release', payload)];
    await expect(bus.execute('item.confirm', payload)).rejects.toMatchObject({ code: 'service-unavailable' });
    expect(inner.waiting).toBe(4);
    inner.finish(4);
    await Promise.all([...scans, ...finishing]);
  });

  it('lets as many wait as answer within maxWaitMs at the rate measured while busy', async () => {
    let t = 0;
    const inner = manualBus();
    const bus = new SheddingCommandBus(inner, { maxWaitMs: 1000, minInFlight: 2, initialRatePerSecond: 50, now: () => t });
    expect(bus.capacity()).toBe(50);
    // Busy for 3 s (one command always waiting), one answer every 100 ms: 10 per second.
    let current = run(bus);
    for (let i = 0; i < 30; i++) {
      t += 100;
      const next = run(bus);
      inner.finish(1);
      await current;
      current = next;
    }
    // 18 answers in the window (its newest 250 ms bucket has just begun): 9 per second.
    expect(bus.capacity()).toBe(9);
    const held = Array.from({ length: 8 }, () => run(bus));
    await expect(run(bus)).rejects.toMatchObject({ code: 'service-unavailable' });
    inner.finish(9);
    await Promise.all([current, ...held]);
  });

  it('keeps the last busy rate over an idle spell, so a burst after a pause is not shed', async () => {
    let t = 0;
    const inner = manualBus();
    const bus = new SheddingCommandBus(inner, { maxWaitMs: 1000, minInFlight: 2, initialRatePerSecond: 40, now: () => t });
    t += 60_000;
    // A burst of 30 after a minute of nothing: all admitted, and the first answers do not lower the rate.
    const burst = Array.from({ length: 30 }, () => run(bus));
    t += 100;
    inner.finish(5);
    await Promise.all(burst.slice(0, 5));
    expect(bus.capacity()).toBe(40);
    inner.finish(25);
    await Promise.all(burst);
  });
});
