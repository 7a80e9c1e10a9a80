import { Admission, type AdmissionOptions, type Admitted } from '../../shared/commands/admission';
import type { CommandName } from '../../shared/commands/commands';
import { AppError } from '../../shared/errors/app-error';

const options = (more: Partial<AdmissionOptions> = {}): AdmissionOptions => ({
  maxWaitMs: 1000,
  maxInFlight: 2000,
  minInFlight: 4,
  initialServiceMs: 10,
  partitions: 8,
  now: () => 0,
  ...more,
});

/** Commands admitted and not yet answered; `finish(n, ms)` answers the n oldest, each reporting `ms` of service. */
function floor(admission: Admission, partition = 0) {
  const open: Admitted[] = [];
  return {
    admit(name: CommandName = 'item.scan') {
      open.push(admission.admit(name, partition));
    },
    finish(n: number, serviceMs?: number) {
      for (const a of open.splice(0, n)) {
        if (serviceMs !== undefined) a.served(serviceMs);
        a.done();
      }
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

/**
 * One partition worked one command at a time, as the sorting worker does, on an injected clock (1 ms
 * steps): commands arrive when `arrivals` says, are admitted or refused by the policy, reach the
 * partition's queue `transitMs` later (the API, Redis and the worker's fetch on a busy machine), wait in
 * order and take `serviceMs(i)` each; the answer, with the service time, is back `transitMs` after.
 */
function simulate(opts: { ms: number; arrivals: (t: number) => CommandName[]; serviceMs: (i: number) => number; transitMs?: number; reportedMs?: (ms: number) => number; admission?: Partial<AdmissionOptions> }) {
  let t = 0;
  const transit = opts.transitMs ?? 0;
  const a = new Admission(options({ now: () => t, ...opts.admission }));
  type Command = { admitted: Admitted; at: number; ms: number };
  const sent: { command: Command; due: number }[] = [];
  const queue: Command[] = [];
  const answers: { command: Command; due: number }[] = [];
  let busyUntil = -1;
  let current: Command | null = null;
  let served = 0;
  const refused: Record<string, number> = {};
  const waits: number[] = [];
  /** When each answered command was admitted, and its wait. */
  const answered: { at: number; wait: number }[] = [];
  for (; t < opts.ms; t++) {
    while (answers.length && answers[0].due <= t) {
      const { command } = answers.shift()!;
      command.admitted.served(opts.reportedMs ? opts.reportedMs(command.ms) : command.ms);
      command.admitted.done();
      waits.push(t - command.at);
      answered.push({ at: command.at, wait: t - command.at });
    }
    if (current && t >= busyUntil) {
      answers.push({ command: current, due: t + transit });
      current = null;
    }
    for (const name of opts.arrivals(t)) {
      const error = shed(() => sent.push({ command: { admitted: a.admit(name, 0), at: t, ms: 0 }, due: t + transit }));
      if (error) refused[name] = (refused[name] ?? 0) + 1;
    }
    while (sent.length && sent[0].due <= t) queue.push(sent.shift()!.command);
    if (!current && queue.length) {
      current = queue.shift()!;
      current.ms = opts.serviceMs(served++);
      busyUntil = t + current.ms;
    }
  }
  return { refused, waits, answered, maxWait: Math.max(0, ...waits), admission: a };
}

/**
 * A partition as the sorting worker runs it, on an injected clock (1 ms steps): it holds up to 16 of
 * the partition's commands at once, each wall's actor takes the commands of its wall waiting when its
 * turn comes and writes them as one group (`groupMs(n)`), the walls side by side; the answers of a
 * group go back together, each reporting the time since its hand-over or the partition's previous
 * answer, whichever is later (partition-host.ts). Sorters send either in a closed loop (each its next
 * command `thinkMs` after its answer, scan and confirm in turn; a refused one again after `retryMs`)
 * or, with `openEveryMs`, one scan that often to the walls in turn whatever the answers.
 */
function simulateGroups(opts: {
  ms: number;
  walls: number;
  sorters?: number;
  groupMs: (n: number) => number;
  transitMs?: number;
  thinkMs?: number;
  retryMs?: number;
  openEveryMs?: number;
  admission?: Partial<AdmissionOptions>;
}) {
  let t = 0;
  const transit = opts.transitMs ?? 5;
  const a = new Admission(options({ maxWaitMs: 800, now: () => t, ...opts.admission }));
  type Command = { wall: number; sorter: number; admitted: Admitted; at: number; handedAt: number };
  const sent: { command: Command; due: number }[] = [];
  const queue: Command[] = [];
  const answers: { command: Command; due: number; serviceMs: number }[] = [];
  const walls = Array.from({ length: opts.walls }, () => ({ waiting: [] as Command[], group: [] as Command[], busyUntil: -1 }));
  let inHand = 0;
  let answeredAt = -Infinity;
  const next: { sorter: number; wall: number; due: number; name: CommandName }[] = [];
  if (opts.openEveryMs === undefined) {
    for (let w = 0; w < opts.walls; w++) for (let s = 0; s < (opts.sorters ?? 6); s++) next.push({ sorter: s, wall: w, due: s + 7 * w, name: 'item.scan' });
  }
  let refused = 0;
  let admitted = 0;
  const waits: number[] = [];
  const send = (wall: number, sorter: number, name: CommandName) => {
    try {
      const command: Command = { wall, sorter, admitted: a.admit(name, 0), at: t, handedAt: -1 };
      admitted++;
      sent.push({ command, due: t + transit });
      return true;
    } catch {
      refused++;
      return false;
    }
  };
  for (; t < opts.ms; t++) {
    while (answers.length && answers[0].due <= t) {
      const { command, serviceMs } = answers.shift()!;
      command.admitted.served(serviceMs);
      command.admitted.done();
      waits.push(t - command.at);
      if (opts.openEveryMs === undefined) next.push({ sorter: command.sorter, wall: command.wall, due: t + (opts.thinkMs ?? 0), name: waits.length % 2 ? 'item.confirm' : 'item.scan' });
    }
    for (const wall of walls) {
      if (wall.group.length && t >= wall.busyUntil) {
        for (const command of wall.group) {
          answers.push({ command, due: t + transit, serviceMs: t - Math.max(command.handedAt, answeredAt) });
          answeredAt = t;
          inHand--;
        }
        wall.group = [];
      }
    }
    if (opts.openEveryMs !== undefined && t % opts.openEveryMs === 0) send((t / opts.openEveryMs) % opts.walls, 0, 'item.scan');
    for (let i = next.length - 1; i >= 0; i--) {
      const n = next[i];
      if (n.due > t) continue;
      next.splice(i, 1);
      if (!send(n.wall, n.sorter, n.name)) next.push({ ...n, due: t + (opts.retryMs ?? 100) });
    }
    while (sent.length && sent[0].due <= t) queue.push(sent.shift()!.command);
    while (queue.length && inHand < 16) {
      const command = queue.shift()!;
      command.handedAt = t;
      inHand++;
      walls[command.wall].waiting.push(command);
    }
    for (const wall of walls) {
      if (!wall.group.length && wall.waiting.length) {
        wall.group = wall.waiting.splice(0, 16);
        wall.busyUntil = t + opts.groupMs(wall.group.length);
      }
    }
  }
  const sorted = [...waits].sort((x, y) => x - y);
  return { refused, admitted, answered: waits.length, maxWait: sorted[sorted.length - 1] ?? 0, p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0, admission: a };
}

describe('the command admission policy', () => {
  it('admits a light load on a partition slowed by fsync waits: a burst of scans behind a slow commit is not shed', () => {
    // About 6 commands a second on the partition (25 pairs/s over 8 partitions), each taking 20 ms,
    // every fifth 150 ms (a commit waiting for its fsync beside another busy process), and 80 ms on the
    // way each way (a busy core): the process always has one waiting, so a policy that takes the
    // answer rate (6/s) for what the partition can do sheds the fourth scan when six sorters of a wall
    // scan at once (every 2 s). The partition answers all six within half a second.
    const run = simulate({
      ms: 20_000,
      arrivals: (t) => (t % 2000 === 1000 ? Array<CommandName>(6).fill('item.scan') : t % 166 === 0 ? ['item.scan'] : []),
      serviceMs: (i) => (i % 5 === 4 ? 150 : 20),
      transitMs: 80,
    });
    expect(run.refused).toEqual({});
    expect(run.maxWait).toBeLessThan(1000);
    expect(run.admission.serviceTime(0)).toBeLessThan(100);
  });

  it('refuses a real overload, keeps every admitted command within its wait, and still admits work in hand', () => {
    // 40 scans a second at 50 ms each: twice what the partition can do.
    const run = simulate({ ms: 10_000, arrivals: (t) => (t % 25 === 0 ? ['item.scan'] : []), serviceMs: () => 50 });
    expect(run.refused['item.scan']).toBeGreaterThan(150);
    // New work waits at most its budget (half of maxWaitMs) and the one in service (and the model's 1 ms steps).
    expect(run.maxWait).toBeLessThanOrEqual(500 + 50 + 5);
    expect(run.admission.refusal('item.scan', 0)?.code).toBe('service-unavailable');
    expect(run.admission.refusal('item.confirm', 0)).toBeNull();
  });

  it('learns what answers take beyond waiting × the reported service time: a partition slower than its workers report keeps its wait', () => {
    // 40 scans a second; the worker reports 10 ms for each but answers one every 40 ms (it shares its
    // time with other partitions, the host is saturated). Waiting × 10 ms says 50 may wait within the
    // budget, and only the oldest's budget stops them: scans waited up to 790 ms. Once a few dozen
    // answers are in, admitted scans wait about their budget (the slowdown learnt a little under 4).
    const run = simulate({ ms: 10_000, arrivals: (t) => (t % 25 === 0 ? ['item.scan'] : []), serviceMs: () => 40, reportedMs: () => 10 });
    const settled = run.answered.filter((x) => x.at >= 2000).map((x) => x.wait);
    expect(settled.length).toBeGreaterThan(100);
    expect(Math.max(...settled)).toBeLessThanOrEqual(500 + 100);
    expect(run.refused['item.scan']).toBeGreaterThan(100);
  });

  it('learns that commands ahead cost less than their service time on a partition that writes in groups, and admits a closed loop it answers in time', () => {
    // Three walls of six sorters on one partition, each sending its next command as soon as it has an
    // answer; a wall's group takes 100 ms + 3 ms a command, the walls side by side. 17 commands ahead
    // answer within about 220 ms, but they count 17 × the service time the worker reports: with the
    // slowdown held at 1 at least, that was over the 400 ms of new work and scans were refused.
    const run = simulateGroups({ ms: 30_000, walls: 3, groupMs: (n) => 100 + 3 * n, transitMs: 10 });
    expect(run.refused).toBe(0);
    expect(run.answered).toBeGreaterThan(2000);
    expect(run.maxWait).toBeLessThanOrEqual(400);
  });

  it('still refuses a real overload of a partition that writes in groups, and answers every admitted command within a second', () => {
    // One scan every 2 ms to three walls: half again what their groups (40 ms + 5 ms a command) can write.
    const run = simulateGroups({ ms: 30_000, walls: 3, groupMs: (n) => 40 + 5 * n, transitMs: 10, openEveryMs: 2 });
    expect(run.refused).toBeGreaterThan(5000);
    expect(run.answered).toBeGreaterThan(5000);
    expect(run.maxWait).toBeLessThan(1000);
    // At two thirds of what they can write, nothing is refused.
    const light = simulateGroups({ ms: 30_000, walls: 3, groupMs: (n) => 40 + 5 * n, transitMs: 10, openEveryMs: 5 });
    expect(light.refused).toBe(0);
  });

  it('fits the slowdown to what the answers show, below 1 as well as above, and weighs a command behind many by its wait', () => {
    let t = 0;
    const a = new Admission(options({ initialServiceMs: 50, now: () => t }));
    const f = floor(a);
    // Each round: a confirm alone (answered in 50 ms), then nine behind it, all answered 50 ms later,
    // together (a group): the nine waited 50 ms beyond a command alone where 0…8 × 50 ms were expected.
    const round = (together: boolean) => {
      for (let i = 0; i < 10; i++) f.admit('item.confirm');
      for (let i = 0; i < 10; i++) {
        t += i <= 1 || !together ? 50 : 0;
        f.finish(1, 50);
      }
    };
    for (let i = 0; i < 30; i++) round(true);
    // The ratio is about 0.22 (400 ms over 1800 ms a round, the command first in line not counted; the
    // mean of the eight ratios would say 0.34): a scan expects a command alone's 50 ms and about 11 ms
    // for each command ahead but the first, so 44 may wait within its 500 ms where waiting × 50 ms
    // allowed 10.
    for (let i = 0; i < 43; i++) f.admit('item.scan');
    expect(a.refusal('item.scan', 0)).toBeNull();
    f.admit('item.scan');
    expect(shed(() => f.admit('item.scan'))?.code).toBe('service-unavailable');
    f.finish(44);
    // The partition turns to one command at a time (each answered 50 ms after the one before): the
    // ratio climbs back over 1 (about 1.2) and a scan is refused before 10 wait again.
    for (let i = 0; i < 40; i++) round(false);
    for (let i = 0; i < 9; i++) f.admit('item.scan');
    expect(shed(() => f.admit('item.scan'))?.code).toBe('service-unavailable');
  });

  it('does not count a rise of the service time twice: the slowdown is fitted against the service times reported while a command waited', () => {
    let t = 0;
    const a = new Admission(options({ initialServiceMs: 2, now: () => t }));
    const f = floor(a);
    // Idle: a scan alone at a time, 2 ms of service, answered in 10 ms.
    for (let i = 0; i < 20; i++) {
      f.admit('item.scan');
      t += 10;
      f.finish(1, 2);
    }
    // Cold walls: six confirms at once, each taking 20 ms, one after the other. The sixth waited about
    // five service times of 20 ms; against the 2 ms of the estimate at its admission that is a slowdown
    // of over ten, and times the estimate that has followed the rise meanwhile (15 ms), a command ahead
    // would be counted at 150 ms: the fourth scan waiting refused, where six were answered within 130 ms.
    for (let i = 0; i < 6; i++) f.admit('item.confirm');
    t += 8;
    for (let i = 0; i < 6; i++) {
      t += 20;
      f.finish(1, 20);
    }
    expect(a.serviceTime(0)).toBeGreaterThan(14);
    for (let i = 0; i < 10; i++) f.admit('item.scan');
    expect(a.refusal('item.scan', 0)).toBeNull();
  });

  it('compares the expected wait (a command alone, then each waiting command but the first at the service time the worker reports) with the budget: work in hand has all of it, new work half', () => {
    const a = new Admission(options());
    const f = floor(a);
    f.admit('item.scan');
    f.finish(1, 100);
    f.finish(0);
    // The estimate moves a fifth of the way to each report: 10 → 28 ms.
    expect(a.serviceTime(0)).toBeCloseTo(28, 5);
    for (let i = 0; i < 20; i++) {
      f.admit('item.scan');
      f.finish(1, 50);
    }
    expect(a.serviceTime(0)).toBeCloseTo(50, 0);
    // A command alone is answered at once on this clock (0 ms), so with 11 waiting a scan expects
    // 0 + 10 × 50 ms = the new-work budget (500 ms): one more scan, then none.
    for (let i = 0; i < 12; i++) f.admit('item.scan');
    const refused = shed(() => f.admit('item.scan'));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused?.code).toBe('service-unavailable');
    expect(refused?.message).toMatch(/12 commands waiting.*nothing was changed/);
    // Work in hand: up to 1000 ms of expected wait.
    for (let i = 0; i < 10; i++) f.admit('slot.release');
    expect(shed(() => f.admit('item.confirm'))?.code).toBe('service-unavailable');
    expect(f.waiting).toBe(22);
    f.finish(22);
    expect(a.waiting()).toBe(0);
  });

  it('always admits minInFlight per partition (new work: half), however slow the estimate', () => {
    const a = new Admission(options({ initialServiceMs: 5000 }));
    const f = floor(a);
    f.admit('item.scan');
    f.admit('item.scan');
    expect(shed(() => f.admit('item.scan'))?.code).toBe('service-unavailable');
    f.admit('item.confirm');
    f.admit('item.confirm');
    expect(shed(() => f.admit('item.confirm'))?.code).toBe('service-unavailable');
  });

  it('keeps each partition apart, and a cold partition starts from the process\'s average service time', () => {
    const a = new Admission(options());
    const busy = floor(a, 3);
    for (let i = 0; i < 10; i++) {
      busy.admit('item.confirm');
      busy.finish(1, 200);
    }
    for (let i = 0; i < 4; i++) busy.admit('item.confirm');
    expect(a.refusal('item.scan', 3)?.code).toBe('service-unavailable');
    // Another partition has nothing waiting: its scan goes through.
    expect(a.refusal('item.scan', 5)).toBeNull();
    floor(a, 5).admit('item.scan');
    expect(a.serviceTime(5)).toBeGreaterThan(150);
    expect(a.waiting(3)).toBe(4);
    expect(a.waiting(5)).toBe(1);
    expect(a.waiting()).toBe(5);
  });

  it('refuses, before the wall is known, only what every partition would refuse', () => {
    const a = new Admission(options({ partitions: 2, initialServiceMs: 1000 }));
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
    // The early check does not tell a person's only command apart (it keeps a general overload's
    // refusals cheap); the policy of a partition does, once the wall is known.
    expect(a.refusal('item.scan', 1, 42)).toBeNull();
  });

  it("admits a person's only command whatever the estimate: sorters and shippers who wait for their answers are no backlog", () => {
    let t = 0;
    const a = new Admission(options({ initialServiceMs: 1000, now: () => t }));
    const open: Admitted[] = [];
    // Without a person, the third scan expects two seconds behind two others and is refused (budget 500 ms).
    open.push(a.admit('item.scan', 0), a.admit('item.scan', 0));
    expect(shed(() => a.admit('item.scan', 0))?.code).toBe('service-unavailable');
    // Ten people, one command each, scans and confirms alike: every one admitted.
    for (let person = 1; person <= 10; person++) open.push(a.admit(person % 2 ? 'item.confirm' : 'item.scan', 0, person));
    expect(a.waiting(0)).toBe(12);
    // A second command of someone whose first still waits (a client that does not wait for its answers) is judged as any other.
    expect(shed(() => a.admit('item.scan', 0, 4))?.code).toBe('service-unavailable');
    expect(shed(() => a.admit('item.confirm', 0, 3))?.code).toBe('service-unavailable');
    // Once their answer is in, their next command is their only one again.
    open.splice(2 + 3, 1)[0]!.done();
    open.push(a.admit('item.scan', 0, 4));
    // A backlog whose oldest has waited the whole budget is refused whoever sends to it, with a Retry-After.
    t = 999;
    expect(a.refusal('item.scan', 0, 11)).toBeNull();
    t = 1000;
    const late = shed(() => a.admit('item.scan', 0, 11));
    expect(late?.code).toBe('service-unavailable');
    expect(Number(late?.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(a.refusal('item.confirm', 0, 11)?.code).toBe('service-unavailable');
    // Another partition with nothing late still takes them.
    open.push(a.admit('item.scan', 1, 11));
    // Every command answered: no one is left counted.
    for (const o of open.splice(0)) o.done();
    expect(a.waiting()).toBe(0);
    t = 2000;
    for (let i = 0; i < 3; i++) open.push(a.admit('item.scan', 0, 20 + i));
    expect(a.waiting(0)).toBe(3);
  });

  it('sheds a partition whose oldest command has waited its budget, whatever the estimate says', () => {
    let t = 0;
    const a = new Admission(options({ minInFlight: 2, initialServiceMs: 1, now: () => t }));
    const f = floor(a);
    f.admit('item.scan');
    t += 499;
    f.admit('item.scan');
    t += 1;
    // Room for hundreds by the estimate, but the oldest has waited half of maxWaitMs: no new work.
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

  it('admits up to the floor behind one slow command: a sign-in burst right after a start is not refused because the first command is slow', () => {
    let t = 0;
    // minInFlight 4: new work's floor is 2 per partition.
    const a = new Admission(options({ now: () => t }));
    const f = floor(a);
    // The partition's first command after a start: it takes 700 ms (a cold process).
    f.admit('session.start');
    t += 600;
    // Its oldest has waited past new work's budget (500 ms), but one command is no backlog.
    expect(a.refusal('session.start', 0)).toBeNull();
    f.admit('session.start');
    // At the floor, the oldest's age counts again.
    expect(a.refusal('session.start', 0)?.code).toBe('service-unavailable');
    expect(a.refusal('item.confirm', 0)).toBeNull();
    t += 100;
    f.finish(1, 700);
    expect(a.refusal('session.start', 0)).toBeNull();
  });

  it('refuses new work while the process\'s own event loop runs later than its budget, and work in hand only past the whole wait', () => {
    let loop = 0;
    const a = new Admission(options({ partitions: 2, loopDelayMs: () => loop }));
    expect(a.refusal('item.scan')).toBeNull();
    loop = 600;
    expect(a.refusal('item.scan')?.code).toBe('service-unavailable');
    expect(a.refusal('item.scan', 1)?.code).toBe('service-unavailable');
    expect(a.refusal('item.confirm')).toBeNull();
    // The loop's delay adds to the wait a partition's backlog sets: 300 + 30 × 10 ms is over 500 ms.
    loop = 300;
    const f = floor(a, 0);
    for (let i = 0; i < 30; i++) f.admit('item.confirm');
    expect(a.refusal('item.scan', 0)?.code).toBe('service-unavailable');
    expect(a.refusal('item.scan', 1)).toBeNull();
    loop = 1000;
    expect(a.refusal('item.confirm')?.code).toBe('service-unavailable');
  });

  it('spreads the re-sends: Retry-After drawn between once and twice the time the backlog needs to drain (at least 1 s), finer in retryAfterMs', () => {
    let r = 0;
    const a = new Admission(options({ minInFlight: 2, initialServiceMs: 1000, random: () => r }));
    const f = floor(a);
    f.admit('item.scan');
    const answers = [0, 0.2, 0.49, 0.5, 0.99].map((v) => {
      r = v;
      const e = a.refusal('item.scan', 0)!;
      return [e.headers?.['Retry-After'], e.extensions?.retryAfterMs];
    });
    expect(answers).toEqual([
      ['1', 1000],
      ['1', 1200],
      ['1', 1490],
      ['2', 1500],
      ['2', 1990],
    ]);
    // A deeper backlog: 3 s of work waiting asks for 3 to 6 s.
    const deep = new Admission(options({ minInFlight: 3, initialServiceMs: 1000, random: () => r }));
    const g = floor(deep);
    g.admit('item.confirm');
    g.admit('item.confirm');
    g.admit('item.confirm');
    r = 0;
    expect(shed(() => g.admit('item.confirm'))?.headers).toEqual({ 'Retry-After': '3' });
    r = 0.9;
    expect(shed(() => g.admit('item.confirm'))?.headers).toEqual({ 'Retry-After': '6' });
    // A draw just under 1 stays under twice the base once rounded.
    r = 0.99999;
    expect(shed(() => g.admit('item.confirm'))?.extensions).toEqual({ retryAfterMs: 5999 });
    // With the real random source, a floor refused at once gets different times.
    const b = new Admission(options({ minInFlight: 2, initialServiceMs: 1000 }));
    floor(b).admit('item.scan');
    const ms = Array.from({ length: 200 }, () => b.refusal('item.scan', 0)!.extensions!.retryAfterMs as number);
    expect(Math.min(...ms)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...ms)).toBeLessThan(2000);
    expect(new Set(ms).size).toBeGreaterThan(50);
  });

  it('never admits more than COMMAND_MAX_IN_FLIGHT in the process, whatever the estimate, the kind or the partition', () => {
    const a = new Admission(options({ maxInFlight: 3, minInFlight: 16, initialServiceMs: 0 }));
    floor(a, 0).admit('item.confirm');
    floor(a, 1).admit('item.confirm');
    floor(a, 2).admit('item.confirm');
    expect(shed(() => floor(a, 3).admit('item.confirm'))?.code).toBe('service-unavailable');
    expect(a.refusal('item.confirm')?.code).toBe('service-unavailable');
  });

  it('ignores a service time that is no number of milliseconds', () => {
    const a = new Admission(options());
    const f = floor(a);
    f.admit();
    f.finish(1, Number.NaN);
    f.admit();
    f.finish(1, -5);
    expect(a.serviceTime(0)).toBe(10);
  });
});
