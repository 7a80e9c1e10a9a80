import { SheddingCommandBus } from '../../services/api/use-cases/sorting/overload-shedder';
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

describe('SheddingCommandBus', () => {
  it('admits up to minInFlight with no rate measured, then answers 503 with Retry-After at once', async () => {
    const inner = manualBus();
    const bus = new SheddingCommandBus(inner, { maxWaitMs: 1000, minInFlight: 3, now: () => 0 });
    const admitted = [0, 1, 2].map(() => bus.execute('sort-box-item.scan' as never, payload));
    const started = performance.now();
    const shed = await bus.execute('sort-box-item.scan' as never, payload).then(
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

  it('lets as many wait as answer within maxWaitMs at the measured rate', async () => {
    let t = 0;
    const inner = manualBus();
    const bus = new SheddingCommandBus(inner, { maxWaitMs: 1000, minInFlight: 2, now: () => t });
    // 20 answers within the last 2 s: 10 per second → 10 may wait at once for a 1 s bound.
    for (let i = 0; i < 20; i++) {
      const p = bus.execute('x' as never, payload);
      inner.finish(1);
      await p;
      t += 50;
    }
    expect(bus.capacity()).toBe(10);
    const held = Array.from({ length: 10 }, () => bus.execute('x' as never, payload));
    await expect(bus.execute('x' as never, payload)).rejects.toMatchObject({ code: 'service-unavailable' });
    inner.finish(10);
    await Promise.all(held);
    // Answers older than the 2 s window no longer count.
    t += 5000;
    expect(bus.capacity()).toBe(2);
  });
});
