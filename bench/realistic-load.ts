import { randomUUID } from 'node:crypto';
import type { HttpAnswer, HttpClient } from './http-client';
import type { RealisticSeed, RealisticWall } from './realistic-seed';
import { REALISTIC_PASSWORD } from './realistic-seed';
import { ErrorCounts, summarize, type LatencySummary } from './stats';

/*
 * The realistic floor, driven over HTTP: sorters take the next unit of their wall's tote, scan it,
 * confirm it into the slot the answer names; when an order's last unit is confirmed the wall's shipper
 * releases the slot (B- barcode), and the next order's first scan takes a free slot. One WebSocket
 * listener per wall counts the relayed events; an optional burst of sign-ins lands mid-step.
 */

/** The command timeout (10 s) and some: an overloaded step drains in bounded time. */
const CLIENT_TIMEOUT_MS = 12_000;

export interface Actor {
  auth: string;
  wallIndex: number;
  sessionToken?: string;
}

export interface RealisticFloor {
  seed: RealisticSeed;
  sorters: Actor[];
  shippers: Actor[];
  /** Confirmed units per order so far (the bench's view). */
  confirmed: Map<number, number>;
}

export interface RealisticStep {
  step: string;
  offeredRate: number | null;
  seconds: number;
  pairs: number;
  pairsPerSecond: number;
  scan: LatencySummary;
  /** Scan p99 over every answer, failures included. */
  scanP99All: number;
  confirm: LatencySummary;
  release: LatencySummary;
  errors: Record<string, number>;
  fiveXx: number;
  signIns?: { latency: LatencySummary; errors: Record<string, number>; scanDuring: LatencySummary };
  sendLag?: LatencySummary;
}

export async function signIn(http: HttpClient, email: string): Promise<{ status: number; auth?: string; code: string | null }> {
  const res = await http.request('POST', '/token', { body: { username: email, password: REALISTIC_PASSWORD }, timeoutMs: 60_000 });
  return { status: res.status, code: res.code, auth: res.status === 200 ? `Bearer ${(res.body as { access_token: string }).access_token}` : undefined };
}

/**
 * Connects a signed-in sorter to a wall; a 503 (nothing was changed: the service sheds load on a busy
 * machine) is sent again after a second, up to 30 times, as a device would.
 */
export async function connectSession(http: HttpClient, wallId: number, auth: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const res = await http.request('POST', `/api/v1/walls/${wallId}/sessions`, { auth, body: {}, timeoutMs: CLIENT_TIMEOUT_MS });
    if (res.status === 200) return (res.body as { token: string }).token;
    if (res.status !== 503 || attempt === 30) throw new Error(`connecting to wall ${wallId} failed: ${res.status} ${JSON.stringify(res.body)}`);
    await pause(RETRY_PAUSE_MS);
  }
}

/** Signs every sorter and shipper in (a few at a time) and connects each sorter to its wall. */
export async function prepareFloor(http: HttpClient, seed: RealisticSeed): Promise<RealisticFloor> {
  const one = async (p: { email: string; wallIndex: number }, connect: boolean): Promise<Actor> => {
    const t = await signIn(http, p.email);
    if (!t.auth) throw new Error(`sign-in of ${p.email} failed: ${t.status} ${t.code}`);
    const actor: Actor = { auth: t.auth, wallIndex: p.wallIndex };
    if (connect) actor.sessionToken = await connectSession(http, seed.walls[p.wallIndex].id, t.auth);
    return actor;
  };
  const sorters: Actor[] = [];
  for (let i = 0; i < seed.sorters.length; i += 6) sorters.push(...(await Promise.all(seed.sorters.slice(i, i + 6).map((p) => one(p, true)))));
  const shippers = await Promise.all(seed.shippers.map((p) => one(p, false)));
  return { seed, sorters, shippers, confirmed: new Map() };
}

/** The code of a scan the sorter could not send: the wall's tote is empty (every unit the seed gave it scanned). */
const TOTE_EMPTY = 'tote-empty';

/**
 * Scans a step could not send because a wall's tote ran out: that step offered less than its sorters
 * or its rate say (its errors, as a step reports them).
 */
export function scansNotSent(errors: Record<string, number> | undefined): number {
  return errors?.[`-1 scan ${TOTE_EMPTY}`] ?? 0;
}

class Rec {
  scanOk: number[] = [];
  scanAll: number[] = [];
  /** [answered at, latency] of successful scans, to cut out the sign-in burst's window. */
  scanAt: [number, number][] = [];
  confirmOk: number[] = [];
  releaseOk: number[] = [];
  errors = new ErrorCounts();
  fiveXx = 0;
  pairs = 0;
  lastAnswer = 0;
  sendLag: number[] = [];
  fail(op: string, status: number, code: string | null) {
    this.errors.add(status, `${op} ${code ?? 'unknown'}`);
    if (status >= 500 || status === 0) this.fiveXx++;
  }
}

/** Whether the wall's tote (or the units put back into it) has a unit left. */
function hasUnit(w: RealisticWall): boolean {
  return w.putBack.length > 0 || w.cursor < w.tote.length;
}

function nextUnit(w: RealisticWall): string | undefined {
  return w.putBack.shift() ?? (w.cursor < w.tote.length ? w.tote[w.cursor++] : undefined);
}

/** How often a device sends a request again whose outcome it does not know, a second apart. */
const MAX_RESENDS = 15;
const RETRY_PAUSE_MS = 1000;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the answer leaves the outcome open (no answer, 504) or asks to come back (503). */
const unsettled = (status: number) => status === 0 || status === 503 || status === 504;

/**
 * Sends a request the way a scanner or the shipper's station does: after 503 (nothing was changed),
 * 504 or no answer (the outcome is unknown) it sends the same request again after Retry-After (1 s),
 * a bounded number of times. Every answer that was not a success is counted.
 */
async function resend(op: string, rec: Rec, send: () => Promise<HttpAnswer>): Promise<{ answer: HttpAnswer; resent: boolean }> {
  let answer = await send();
  let resent = false;
  for (let n = 0; unsettled(answer.status) && n < MAX_RESENDS; n++) {
    rec.fail(op, answer.status, answer.code);
    await pause(RETRY_PAUSE_MS);
    answer = await send();
    resent = true;
  }
  rec.lastAnswer = Math.max(rec.lastAnswer, performance.now());
  return { answer, resent };
}

/** The shipper empties a complete slot; a release answered 409/404 after a resend had gone through the first time. */
async function release(http: HttpClient, floor: RealisticFloor, wallIndex: number, crc: string, rec: Rec): Promise<void> {
  const t0 = performance.now();
  const { answer, resent } = await resend('release', rec, () => http.request('POST', `/api/v1/sort-boxes/B-${crc}/release`, { auth: floor.shippers[wallIndex].auth, timeoutMs: CLIENT_TIMEOUT_MS }));
  if (answer.status === 200 || (resent && answer.status >= 400 && answer.status < 500)) rec.releaseOk.push(performance.now() - t0);
  else rec.fail('release', answer.status, answer.code);
}

/** Resolves with how long the sorter should wait before the next unit: Retry-After after a 503, else 0. */
async function pair(http: HttpClient, floor: RealisticFloor, s: Actor, rec: Rec, scheduledAt: number, releases: Set<Promise<void>>): Promise<number> {
  const wall = floor.seed.walls[s.wallIndex];
  const barcode = nextUnit(wall);
  if (!barcode) {
    rec.fail('scan', -1, TOTE_EMPTY);
    return 0;
  }
  // Every scan carries an Idempotency-Key, as the sorter page does: after a 504 or no answer the device
  // sends the same scan again and learns the real outcome, instead of leaving a lit slot nobody fills.
  const scanRequest = { auth: s.auth, body: { sessionToken: s.sessionToken, barcode }, timeoutMs: CLIENT_TIMEOUT_MS, headers: { 'idempotency-key': randomUUID() } };
  let scan = await http.request('POST', '/api/v1/sort-box-items', scanRequest);
  rec.scanAll.push(performance.now() - scheduledAt);
  if (scan.status === 503) {
    // Nothing was changed: the sorter puts the unit back and honours Retry-After before the next one.
    wall.putBack.push(barcode);
    rec.fail('scan', scan.status, scan.code);
    rec.lastAnswer = Math.max(rec.lastAnswer, performance.now());
    return RETRY_PAUSE_MS;
  }
  if (unsettled(scan.status)) scan = (await resend('scan', rec, () => http.request('POST', '/api/v1/sort-box-items', scanRequest))).answer;
  const scanned = performance.now();
  rec.lastAnswer = Math.max(rec.lastAnswer, scanned);
  if (scan.status !== 200) {
    // Refused (nothing was changed): the unit goes back into the tote and comes again later.
    if (scan.status >= 400 && scan.status < 500) wall.putBack.push(barcode);
    rec.fail('scan', scan.status, scan.code);
    return 0;
  }
  rec.scanOk.push(scanned - scheduledAt);
  rec.scanAt.push([scanned, scanned - scheduledAt]);
  const item = scan.body as { id: number; crc: string; orderId: number };
  const t0 = performance.now();
  // The unit is in the sorter's hand and the slot is lit: the sorter confirms until it is taken (an
  // unconfirmed unit would hold its slot for good). After a resend, item-already-confirmed means the
  // first confirm went through.
  const { answer: confirm, resent } = await resend('confirm', rec, () =>
    http.request('PATCH', `/api/v1/sort-box-items/${item.id}/confirm`, { auth: s.auth, body: { barcode: `A-${item.crc}` }, timeoutMs: CLIENT_TIMEOUT_MS }),
  );
  const t1 = performance.now();
  if (confirm.status !== 200 && !(resent && confirm.code === 'item-already-confirmed')) {
    rec.fail('confirm', confirm.status, confirm.code);
    return 0;
  }
  rec.confirmOk.push(t1 - t0);
  rec.pairs++;
  const done = (floor.confirmed.get(item.orderId) ?? 0) + 1;
  floor.confirmed.set(item.orderId, done);
  // The order is complete: the shipper on the back side empties the slot (not awaited by the sorter).
  if (done === wall.orderUnits.get(item.orderId)) {
    const p = release(http, floor, s.wallIndex, item.crc, rec);
    releases.add(p);
    void p.finally(() => releases.delete(p));
  }
  return 0;
}

function ticker(step: string, start: number, durationMs: number, rec: Rec): NodeJS.Timeout {
  return setInterval(() => {
    const elapsed = performance.now() - start;
    const left = Math.max(0, Math.ceil((durationMs - elapsed) / 1000));
    console.log(`  ${step.padEnd(22)} ${left > 0 ? `${String(left).padStart(3)} s left` : ' draining'} · ${rec.pairs} pairs (${Math.round(rec.pairs / (elapsed / 1000))}/s) · ${rec.releaseOk.length} releases · ${rec.errors.total} errors (${rec.fiveXx} 5xx)`);
  }, 5000);
}

/** The burst: every sorter signs in again at once (a shift change), timed; scans answered meanwhile are kept apart. */
async function burst(http: HttpClient, floor: RealisticFloor): Promise<{ latencies: number[]; errors: ErrorCounts; from: number; to: number }> {
  const errors = new ErrorCounts();
  const from = performance.now();
  const latencies = await Promise.all(
    floor.seed.sorters.map(async (p) => {
      const t0 = performance.now();
      const r = await signIn(http, p.email);
      if (r.status !== 200) errors.add(r.status, r.code ?? 'unknown');
      return performance.now() - t0;
    }),
  );
  return { latencies, errors, from, to: performance.now() };
}

function figures(step: string, rate: number | null, rec: Rec, start: number, durationMs: number, b?: Awaited<ReturnType<typeof burst>>): RealisticStep {
  const seconds = (Math.max(rec.lastAnswer, start + durationMs) - start) / 1000;
  return {
    step,
    offeredRate: rate,
    seconds: Math.round(seconds * 100) / 100,
    pairs: rec.pairs,
    pairsPerSecond: Math.round((rec.pairs / seconds) * 10) / 10,
    scan: summarize(rec.scanOk),
    scanP99All: summarize(rec.scanAll).p99,
    confirm: summarize(rec.confirmOk),
    release: summarize(rec.releaseOk),
    errors: rec.errors.toJSON(),
    fiveXx: rec.fiveXx,
    ...(b
      ? {
          signIns: {
            latency: summarize(b.latencies),
            errors: b.errors.toJSON(),
            // Scans answered from the burst's start until a second after its last sign-in.
            scanDuring: summarize(rec.scanAt.filter(([at]) => at >= b.from && at <= b.to + 1000).map(([, l]) => l)),
          },
        }
      : {}),
    ...(rec.sendLag.length ? { sendLag: summarize(rec.sendLag) } : {}),
  };
}

/**
 * The sorters in the order their pairs arrive in an open loop: the first sorter of each wall, then the
 * second of each, and so on. A floor's walls scan side by side; in the order they were signed in (wall
 * by wall) each wall would take its sorters' pairs one after the other in a burst, then none for the
 * rest of the round.
 */
export function interleavedByWall(sorters: readonly Actor[]): Actor[] {
  const walls = new Map<number, Actor[]>();
  for (const a of sorters) {
    const list = walls.get(a.wallIndex);
    if (list) list.push(a);
    else walls.set(a.wallIndex, [a]);
  }
  const order: Actor[] = [];
  for (let i = 0; order.length < sorters.length; i++) for (const list of walls.values()) if (i < list.length) order.push(list[i]!);
  return order;
}

/** Open loop: `rate` pairs/s offered whatever the answers, the walls interleaved; latency from the planned send time. */
export async function realisticOpen(
  http: HttpClient,
  floor: RealisticFloor,
  rate: number,
  durationMs: number,
  step: string,
  // `sorters`: who scans, in turn (default every sorter); `onOfferEnd`: called when the last pair is sent, before the answers drain.
  opts: { burstAtMs?: number; sorters?: Actor[]; onOfferEnd?: () => void } = {},
): Promise<RealisticStep> {
  const sorters = interleavedByWall(opts.sorters ?? floor.sorters);
  const rec = new Rec();
  const releases = new Set<Promise<void>>();
  const inFlight = new Set<Promise<void>>();
  const total = Math.round((rate * durationMs) / 1000);
  const start = performance.now();
  const tick = ticker(step, start, durationMs, rec);
  let burstRun: Promise<Awaited<ReturnType<typeof burst>>> | undefined;
  try {
    let i = 0;
    while (i < total) {
      const now = performance.now();
      if (opts.burstAtMs !== undefined && !burstRun && now - start >= opts.burstAtMs) burstRun = burst(http, floor);
      for (let due = start + (i * 1000) / rate; i < total && due <= now; due = start + (i * 1000) / rate) {
        rec.sendLag.push(now - due);
        const p = pair(http, floor, sorters[i % sorters.length]!, rec, due, releases).then(() => undefined);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
        i++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    opts.onOfferEnd?.();
    await Promise.all([...inFlight]);
    await Promise.all([...releases]);
  } finally {
    clearInterval(tick);
  }
  return figures(step, rate, rec, start, durationMs, burstRun ? await burstRun : undefined);
}

/** Closed loop: every sorter scans and confirms again as soon as the last pair is answered. */
export async function realisticClosed(http: HttpClient, floor: RealisticFloor, durationMs: number, step: string, opts: { sorters?: Actor[] } = {}): Promise<RealisticStep> {
  const rec = new Rec();
  const releases = new Set<Promise<void>>();
  const start = performance.now();
  const end = start + durationMs;
  const tick = ticker(step, start, durationMs, rec);
  try {
    await Promise.all(
      (opts.sorters ?? floor.sorters).map(async (s) => {
        const wall = floor.seed.walls[s.wallIndex];
        // A wall whose tote is used up stops (BENCH_REALISTIC_ORDERS seeds more), and says so: the step
        // had fewer sorters than it says from then on.
        while (performance.now() < end && hasUnit(wall)) {
          const wait = await pair(http, floor, s, rec, performance.now(), releases);
          if (wait) await pause(Math.min(wait, end - performance.now()));
        }
        if (performance.now() < end && !hasUnit(wall)) rec.fail('scan', -1, TOTE_EMPTY);
      }),
    );
    await Promise.all([...releases]);
  } finally {
    clearInterval(tick);
  }
  return figures(step, null, rec, start, durationMs);
}

/**
 * One pair by one sorter outside any step (the bad day's recovery probe): its scan's latency and whether
 * the pair went through; a completed order's release is added to `releases` for the caller to await.
 */
export async function probePair(http: HttpClient, floor: RealisticFloor, s: Actor, releases: Set<Promise<void>>): Promise<{ ok: boolean; sent: boolean; scanMs: number; at: number }> {
  const t0 = performance.now();
  // Not sent: the sorter's wall has no unit left.
  if (!hasUnit(floor.seed.walls[s.wallIndex])) return { ok: false, sent: false, scanMs: NaN, at: t0 };
  const rec = new Rec();
  const wait = await pair(http, floor, s, rec, t0, releases);
  if (wait) await pause(wait);
  return { ok: rec.pairs > 0, sent: true, scanMs: rec.scanOk[0] ?? rec.scanAll[0] ?? NaN, at: t0 };
}
