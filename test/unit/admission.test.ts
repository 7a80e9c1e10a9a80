import { Admission } from '../../shared/commands/admission';
import { AppError } from '../../shared/errors/app-error';

/** Commands admitted and not yet answered; `finish(n)` answers the n oldest. */
function floor(admission: Admission, partition = 0) {
  const open: (() => void)[] = [];
  return {
    admit(name: Parameters<Admission['admit']>[0] = 'item.scan') {
      open.push(admission.admit(name, partition));
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
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 3, initialRatePerSecond: 0, partitions: 8, now: () => 0 });
    const f = floor(a);
    for (let i = 0; i < 3; i++) f.admit('item.confirm');
    const refused = shed(() => f.admit('item.confirm'));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused?.code).toBe('service-unavailable');
    expect(refused?.headers).toEqual({ 'Retry-After': '1' });
    expect(f.waiting).toBe(3);
    f.finish(3);
    expect(a.waiting()).toBe(0);
  });

  it('sheds new work at half the capacity and admits work in hand (confirm, release) up to all of it', () => {
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 4, initialRatePerSecond: 0, partitions: 8, now: () => 0 });
    const f = floor(a);
    f.admit('item.scan');
    f.admit('item.scan');
    expect(shed(() => f.admit('item.scan'))?.code).toBe('service-unavailable');
    f.admit('item.confirm');
    f.admit('slot.release');
    expect(shed(() => f.admit('item.confirm'))?.code).toBe('service-unavailable');
    expect(f.waiting).toBe(4);
  });

  it('keeps each partition apart: a partition with a backlog sheds while another still admits', () => {
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 4, initialRatePerSecond: 0, partitions: 8, now: () => 0 });
    const busy = floor(a, 3);
    for (let i = 0; i < 4; i++) busy.admit('item.confirm');
    expect(shed(() => busy.admit('item.confirm'))?.code).toBe('service-unavailable');
    expect(a.refusal('item.scan', 3)?.code).toBe('service-unavailable');
    // Another wall's partition has nothing waiting: its scan goes through.
    expect(a.refusal('item.scan', 5)).toBeNull();
    floor(a, 5).admit('item.scan');
    expect(a.waiting(3)).toBe(4);
    expect(a.waiting(5)).toBe(1);
    expect(a.waiting()).toBe(5);
  });

  it('refuses, before the wall is known, only what every partition would refuse', () => {
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 4, initialRatePerSecond: 0, partitions: 2, now: () => 0 });
    expect(a.refusal('item.scan')).toBeNull();
    const p0 = floor(a, 0);
    const p1 = floor(a, 1);
    p0.admit('item.scan');
    p0.admit('item.scan');
    // Partition 0 is full of new work, partition 1 is empty: the early check lets the request on.
    expect(a.refusal('item.scan', 0)?.code).toBe('service-unavailable');
    expect(a.refusal('item.scan')).toBeNull();
    p1.admit('item.scan');
    p1.admit('item.scan');
    expect(a.refusal('item.scan')?.code).toBe('service-unavailable');
    expect(a.refusal('item.confirm')).toBeNull();
  });

  it('sheds a partition whose oldest command has waited too long, whatever the rate says', () => {
    let t = 0;
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 1000, minInFlight: 2, initialRatePerSecond: 200, partitions: 8, now: () => t });
    const f = floor(a);
    f.admit('item.scan');
    t += 499;
    f.admit('item.scan');
    t += 1;
    // Room for 100 by the rate, but the oldest has waited half of maxWaitMs: no new work.
    expect(a.refusal('item.scan', 0)?.code).toBe('service-unavailable');
    expect(a.refusal('item.confirm', 0)).toBeNull();
    t += 500;
    expect(a.refusal('item.confirm', 0)?.code).toBe('service-unavailable');
    // The oldest answered: the next has waited 501 ms, enough for work in hand, not for new work.
    f.finish(1);
    expect(a.refusal('item.confirm', 0)).toBeNull();
    expect(a.refusal('item.scan', 0)?.code).toBe('service-unavailable');
    f.finish(1);
    expect(a.refusal('item.scan', 0)).toBeNull();
  });

  it('refuses before the wall is known when every partition\'s oldest command has waited too long', () => {
    let t = 0;
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 1000, minInFlight: 2, initialRatePerSecond: 200, partitions: 2, now: () => t });
    floor(a, 0).admit('item.scan');
    t += 600;
    expect(a.refusal('item.scan', 0)?.code).toBe('service-unavailable');
    // Partition 1 has nothing waiting: a scan may be for one of its walls.
    expect(a.refusal('item.scan')).toBeNull();
    floor(a, 1).admit('item.confirm');
    t += 500;
    expect(a.refusal('item.scan')?.code).toBe('service-unavailable');
    expect(a.refusal('item.confirm')).toBeNull();
  });

  it('never admits more than COMMAND_MAX_IN_FLIGHT in the process, whatever the rate, the kind or the partition', () => {
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 3, minInFlight: 16, initialRatePerSecond: 1000, partitions: 8, now: () => 0 });
    floor(a, 0).admit('item.confirm');
    floor(a, 1).admit('item.confirm');
    floor(a, 2).admit('item.confirm');
    expect(shed(() => floor(a, 3).admit('item.confirm'))?.code).toBe('service-unavailable');
    expect(a.refusal('item.confirm')?.code).toBe('service-unavailable');
    expect(a.capacity(0)).toBe(3);
  });

  it('lets as many wait as answer within maxWaitMs at the rate its partition answered while busy', () => {
    let t = 0;
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 1000, minInFlight: 2, initialRatePerSecond: 50, partitions: 8, now: () => t });
    const f = floor(a);
    expect(a.capacity(0)).toBe(50);
    // Busy for 3 s (one command always waiting), one answer every 100 ms: 10 per second.
    f.admit('item.confirm');
    for (let i = 0; i < 30; i++) {
      t += 100;
      f.admit('item.confirm');
      f.finish(1);
    }
    // 18 answers in the window (its newest 250 ms bucket has just begun): 9 per second.
    expect(a.capacity(0)).toBe(9);
    // Another partition has its own estimate.
    expect(a.capacity(1)).toBe(50);
    for (let i = 0; i < 8; i++) f.admit('item.confirm');
    expect(shed(() => f.admit('item.confirm'))?.code).toBe('service-unavailable');
  });

  it('keeps the last busy rate over an idle spell, so a burst after a pause is not shed', () => {
    let t = 0;
    const a = new Admission({ maxWaitMs: 1000, maxInFlight: 1000, minInFlight: 2, initialRatePerSecond: 80, partitions: 8, now: () => t });
    const f = floor(a);
    t += 60_000;
    // A burst of 30 after a minute of nothing: all admitted, and the first answers do not lower the rate.
    for (let i = 0; i < 30; i++) f.admit('item.confirm');
    t += 100;
    f.finish(5);
    expect(a.capacity(0)).toBe(80);
    f.finish(25);
  });
});
