import { Admission } from '../../shared/commands/admission';
import { AppError } from '../../shared/errors/app-error';

/** Commands admitted and not yet answered; `finish(n)` answers the n oldest. */
function floor(admission: Admission) {
  const open: (() => void)[] = [];
  return {
    admit(name: Parameters<Admission['admit']>[0] = 'item.scan') {
      open.push(admission.admit(name));
    },
    finish(n: number) {
      for (const done of open.splice(0, n)) done();
    },
    get waiting() {
      return open.length;
    },
  };
}

const shed = (f: () => void): AppError | null => {
  try {
    f();
    return null;
  } catch (e) {
    return e as AppError;
  }
};

describe('the command admission policy', () => {
  it('admits up to its capacity, then answers 503 with Retry-After at once', () => {
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 3, initialRatePerSecond: 0, now: () => 0 });
    const f = floor(a);
    for (let i = 0; i < 3; i++) f.admit();
    const refused = shed(() => f.admit());
    expect(refused).toBeInstanceOf(AppError);
    expect(refused?.code).toBe('service-unavailable');
    expect(refused?.headers).toEqual({ 'Retry-After': '1' });
    expect(f.waiting).toBe(3);
    f.finish(3);
    expect(a.waiting()).toBe(0);
  });

  it('admits work in hand (confirm, release) beyond the capacity that sheds new scans', () => {
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 2, initialRatePerSecond: 0, now: () => 0 });
    const f = floor(a);
    f.admit('item.scan');
    f.admit('item.scan');
    expect(shed(() => f.admit('item.scan'))?.code).toBe('service-unavailable');
    f.admit('item.confirm');
    f.admit('slot.release');
    expect(shed(() => f.admit('item.confirm'))?.code).toBe('service-unavailable');
    expect(f.waiting).toBe(4);
  });

  it('never admits more than COMMAND_MAX_IN_FLIGHT, whatever the rate or the kind of command', () => {
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 3, minInFlight: 16, initialRatePerSecond: 1000, now: () => 0 });
    const f = floor(a);
    for (let i = 0; i < 3; i++) f.admit('item.confirm');
    expect(shed(() => f.admit('item.confirm'))?.code).toBe('service-unavailable');
    expect(a.capacity()).toBe(3);
  });

  it('lets as many wait as answer within maxWaitMs at the rate measured while busy', () => {
    let t = 0;
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 1000, minInFlight: 2, initialRatePerSecond: 50, now: () => t });
    const f = floor(a);
    expect(a.capacity()).toBe(50);
    // Busy for 3 s (one command always waiting), one answer every 100 ms: 10 per second.
    f.admit();
    for (let i = 0; i < 30; i++) {
      t += 100;
      f.admit();
      f.finish(1);
    }
    // 18 answers in the window (its newest 250 ms bucket has just begun): 9 per second.
    expect(a.capacity()).toBe(9);
    for (let i = 0; i < 8; i++) f.admit();
    expect(shed(() => f.admit())?.code).toBe('service-unavailable');
  });

  it('keeps the last busy rate over an idle spell, so a burst after a pause is not shed', () => {
    let t = 0;
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 1000, minInFlight: 2, initialRatePerSecond: 40, now: () => t });
    const f = floor(a);
    t += 60_000;
    // A burst of 30 after a minute of nothing: all admitted, and the first answers do not lower the rate.
    for (let i = 0; i < 30; i++) f.admit();
    t += 100;
    f.finish(5);
    expect(a.capacity()).toBe(40);
    f.finish(25);
  });
});
