import { randomUUID } from 'node:crypto';
import { SimClient, clientIdOf, expectOk } from './sim-client';
import { VirtualLightController } from './virtual-controller';
import { SimulatedPrinter } from './sim-printer';
import { SIM_SORTER_PASSWORD, firstOrderId, loadOrders, setUpFloor, type SimWall } from './sim-setup';
import { seededRandom } from '../../shared/domain/prng';

/*
 * Drives realistic sorting against a running service: per wall, sorters scan, walk to the lit slot,
 * confirm with its A- barcode, now and then cancel, swap to another slot or scan a wrong slot first;
 * a shipper per wall prints the plate of each complete slot on the wall's label printer (a simulated
 * printer this process runs, unless --no-printer) and releases the slot. Orders are loaded again
 * whenever the units run low.
 * Every pause is a human's, scaled by `pace` (0.1 = ten times faster than people).
 */

export interface SimOptions {
  url: string;
  user: string;
  password: string;
  walls: number;
  sortersPerWall: number;
  durationMs: number;
  /** Multiplies every human pause; 1 is a person's speed. */
  pace: number;
  seed: number;
  /** The MQTT broker of the light gateway: one virtual light controller per wall follows its lights there and presses confirm buttons; null: none. */
  mqttUrl: string | null;
  /** Topic prefix of the light gateway (MQTT_TOPIC_PREFIX). */
  mqttPrefix?: string;
  /**
   * A simulated label printer: a raw TCP port this process listens on, registered as the walls' printer
   * at `host` (the address the service reaches this machine at) and `port`; null: none, the shipper
   * only releases. `autoPrint`: the walls print each plate by themselves when an order completes.
   */
  printer?: { host: string; port: number; autoPrint: boolean } | null;
  /** Called about once a second with the progress line. */
  progress?: (line: string) => void;
}

export interface SimSummary {
  seconds: number;
  walls: number;
  sorters: number;
  scans: number;
  confirms: number;
  completedOrders: number;
  cancels: number;
  swaps: number;
  wrongSlots: number;
  /** Units confirmed with a slot's confirm button (virtual lights) instead of the A- scan. */
  buttonConfirms: number;
  ordersLoaded: number;
  /** Print jobs the shipper (or the walls by themselves) asked for, and the labels the simulated printer received. */
  printJobs: number;
  labelsPrinted: number;
  /** Where the simulated printer listened; null: none. */
  printerAt: string | null;
  refusals: Record<string, number>;
  scanMs: { p50: number; p95: number };
  confirmMs: { p50: number; p95: number };
}

function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
}

export async function runSimulation(opts: SimOptions): Promise<SimSummary> {
  const http = new SimClient(opts.url.replace(/\/$/, ''));
  const random = seededRandom(opts.seed);
  const started = Date.now();
  const deadline = started + opts.durationMs;
  const running = () => Date.now() < deadline;
  // A human pause of about `ms` (± 50 %), cut short by the end of the run.
  const pause = (ms: number) => {
    const wait = Math.max(0, Math.min(ms * opts.pace * (0.5 + random()), deadline - Date.now()));
    return new Promise((r) => setTimeout(r, wait));
  };

  const admin = await http.signIn(opts.user, opts.password);
  const { walls, sorters } = await setUpFloor(http, admin, { walls: opts.walls, sortersPerWall: opts.sortersPerWall });

  const stats = { scans: 0, confirms: 0, completedOrders: 0, cancels: 0, swaps: 0, wrongSlots: 0, buttonConfirms: 0, ordersLoaded: 0, printJobs: 0 };
  const printer = opts.printer ? await attachPrinter(http, admin, walls, opts.printer) : null;
  const lights = await virtualLights(http, admin, walls, opts);
  const refusals: Record<string, number> = {};
  const scanMs: number[] = [];
  const confirmMs: number[] = [];
  const refuse = (code: string) => (refusals[code] = (refusals[code] ?? 0) + 1);

  // The units waiting at the walls (one SKU per unit); refilled with new orders when low.
  const units: string[] = [];
  const orderIds = { next: firstOrderId() };
  const batch = Math.max(10, walls.length * 12);
  let refilling: Promise<void> | null = null;
  const refill = () =>
    (refilling ??= loadOrders(http, admin, orderIds, batch, random)
      .then((u) => {
        units.push(...u);
        stats.ordersLoaded += batch;
      })
      .finally(() => (refilling = null)));
  const takeUnit = async (): Promise<string | undefined> => {
    if (units.length < sorters.length * 2) {
      await refill().catch((err: Error) => {
        refuse('order-load-failed');
        opts.progress?.(`loading orders failed: ${err.message}`);
      });
    }
    return units.splice(Math.floor(random() * units.length), 1)[0];
  };

  // What each wall's shipper saw last: the empty slots a swap can move to.
  const emptySlots = new Map<number, string[]>();

  async function shipper(wall: SimWall): Promise<void> {
    while (running()) {
      const res = await http.call<{ slots: { crc: string; status: string }[] }>('GET', `/api/v1/walls/${wall.id}`, { auth: admin });
      if (res.status === 200) {
        emptySlots.set(wall.id, res.body.slots.filter((s) => s.status === 'Empty').map((s) => s.crc));
        for (const slot of res.body.slots.filter((s) => s.status === 'Complete')) {
          await pause(800); // take the order out, print and stick the label
          if (!running()) break;
          if (printer && !opts.printer?.autoPrint) {
            const job = await http.call('POST', `/api/v1/license-plates/B-${slot.crc}/print`, { auth: admin });
            if (job.status === 202) stats.printJobs++;
            else refuse(job.body?.code ?? `http-${job.status}`);
          }
          const rel = await http.call('POST', `/api/v1/sort-boxes/B-${slot.crc}/release`, { auth: admin });
          if (rel.status === 200) stats.completedOrders++;
          else refuse(rel.body?.code ?? `http-${rel.status}`);
        }
      }
      await pause(1000);
    }
  }

  async function confirm(auth: string, itemId: number, crc: string): Promise<boolean> {
    const res = await http.call('PATCH', `/api/v1/sort-box-items/${itemId}/confirm`, { auth, body: { barcode: `A-${crc}` } });
    if (res.status === 200) {
      stats.confirms++;
      confirmMs.push(res.ms);
      return true;
    }
    refuse(res.body?.code ?? `http-${res.status}`);
    return false;
  }

  /** Presses the slot's button on its virtual controller and waits (bounded) for the gateway to confirm the item. */
  async function confirmByButton(vc: VirtualLightController, wallId: number, serial: string | undefined, auth: string, itemId: number): Promise<boolean> {
    if (!serial || !vc.connected) return false;
    await vc.press(serial, 'confirm', wallId);
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await http.call<{ status: string }>('GET', `/api/v1/sort-box-items/${itemId}`, { auth });
      if (res.body?.status === 'Confirmed') {
        stats.confirms++;
        stats.buttonConfirms++;
        return true;
      }
    }
    refuse('button-not-confirmed');
    return false;
  }

  /**
   * Scans a unit; without a final answer (503, 504, none: a 504'd scan may still be applied) the sorter
   * scans the same unit again with the same Idempotency-Key, which answers the first scan's outcome
   * rather than sorting the unit twice (docs/api.md §1 "Retrying"), until an answer or the run's end.
   */
  async function scanUntilAnswered(auth: string, session: string, sku: string) {
    const key = randomUUID();
    for (;;) {
      const scan = await http.call('POST', '/api/v1/sort-box-items', { auth, body: { sessionToken: session, barcode: sku }, headers: { 'idempotency-key': key } });
      if (![0, 503, 504].includes(scan.status) || !running()) return scan;
      refuse(scan.body?.code ?? `http-${scan.status}`);
      await pause(1500);
    }
  }

  async function sorter(email: string, wall: SimWall, index: number): Promise<void> {
    const auth = await http.signIn(email, SIM_SORTER_PASSWORD);
    const connect = async () => {
      const res = await http.call<{ token: string }>('POST', `/api/v1/walls/${wall.id}/sessions`, { auth, body: {} });
      return expectOk(res, `connecting ${email} to ${wall.name}`).token;
    };
    let session = await connect();
    await pause(300 * index); // sorters of a wall do not all start in the same second
    while (running()) {
      const sku = await takeUnit();
      if (!sku) {
        await new Promise((r) => setTimeout(r, 200)); // nothing to sort yet: wait for the next load
        continue;
      }
      await pause(1200); // pick the next unit from the tote, find its barcode
      const scan = await scanUntilAnswered(auth, session, sku);
      if (scan.status !== 200) {
        const code = scan.body?.code ?? `http-${scan.status}`;
        refuse(code);
        if (code === 'session-ended') session = await connect();
        // A full wall or a busy service: the unit goes back, the sorter waits for the shipper.
        if (['no-empty-slot', 'service-unavailable', 'command-timeout', 'no-connection', 'rate-limited'].includes(code)) {
          units.push(sku);
          await pause(1500);
        }
        continue;
      }
      stats.scans++;
      scanMs.push(scan.ms);
      const item = scan.body as { id: number; crc: string };
      await pause(900); // walk to the lit slot
      const r = random();
      if (r < 0.03) {
        // Changed their mind: the unit goes back to the tote.
        const res = await http.call('PATCH', `/api/v1/sort-box-items/${item.id}/cancel`, { auth });
        if (res.status === 200) {
          stats.cancels++;
          units.push(sku);
          continue;
        }
        refuse(res.body?.code ?? `http-${res.status}`); // e.g. pin-required: confirm instead
      } else if (r < 0.06) {
        const free = emptySlots.get(wall.id) ?? [];
        const target = free[Math.floor(random() * free.length)];
        if (target && target !== item.crc) {
          const res = await http.call('PATCH', `/api/v1/sort-box-items/${item.id}/swap`, { auth, body: { sessionToken: session, barcode: `A-${target}` } });
          if (res.status === 200) {
            stats.swaps++;
            item.crc = (res.body as { crc: string }).crc;
            await pause(600);
          } else refuse(res.body?.code ?? `http-${res.status}`);
        }
      } else if (r < 0.1) {
        // A wrong slot first: the service refuses it and the item stays pending.
        const other = (emptySlots.get(wall.id) ?? []).find((c) => c !== item.crc);
        if (other) {
          const res = await http.call('PATCH', `/api/v1/sort-box-items/${item.id}/confirm`, { auth, body: { barcode: `A-${other}` } });
          if (res.body?.code === 'wrong-slot') stats.wrongSlots++;
          else refuse(res.body?.code ?? `http-${res.status}`);
          await pause(700);
        }
      }
      // Some sorters press the lit slot's confirm button instead of scanning its A- code.
      const vc = lights.get(wall.id);
      if (vc && random() < 0.3 && (await confirmByButton(vc.controller, wall.id, vc.serialOf.get(item.crc), auth, item.id))) continue;
      if (!(await confirm(auth, item.id, item.crc))) units.push(sku);
    }
    await http.call('DELETE', `/api/v1/walls/${wall.id}/sessions/${encodeURIComponent(session)}`, { auth });
  }

  const ticker = setInterval(() => {
    const s = (Date.now() - started) / 1000;
    opts.progress?.(
      `[${Math.round(s)}s/${Math.round(opts.durationMs / 1000)}s] scans ${stats.scans} (${(stats.scans / s).toFixed(1)}/s)  confirms ${stats.confirms}  ` +
        `completed ${stats.completedOrders}  cancels ${stats.cancels}  swaps ${stats.swaps}  wrong slots ${stats.wrongSlots}  ` +
        `refused ${Object.values(refusals).reduce((a, b) => a + b, 0)}  units left ${units.length}` +
        (lights.size ? `  lights lit ${litCount(lights)}  button confirms ${stats.buttonConfirms}` : '') +
        (printer ? `  labels printed ${printer.labels.length}` : ''),
    );
  }, 1000);
  try {
    await refill();
    await Promise.all([...walls.map((w) => shipper(w)), ...sorters.map((s, i) => sorter(s.email, s.wall, i % opts.sortersPerWall))]);
    // The last labels asked for are still on their way to the printer: a few seconds for them.
    if (printer) await labelsArrived(http, admin, printer, opts.printer!.autoPrint ? null : stats.printJobs);
  } finally {
    clearInterval(ticker);
    await Promise.all([...lights.values()].map((l) => l.controller.close().catch(() => undefined)));
    await printer?.stop();
  }
  return {
    seconds: Math.round((Date.now() - started) / 100) / 10,
    walls: walls.length,
    sorters: sorters.length,
    ...stats,
    printJobs: printer && opts.printer?.autoPrint ? printer.jobs : stats.printJobs,
    labelsPrinted: printer?.labels.length ?? 0,
    printerAt: printer ? `${opts.printer!.host}:${printer.port}` : null,
    refusals,
    scanMs: { p50: percentile(scanMs, 50), p95: percentile(scanMs, 95) },
    confirmMs: { p50: percentile(confirmMs, 50), p95: percentile(confirmMs, 95) },
  };
}

const SIM_PRINTER_NAME = 'Simulator printer';

/** The simulated printer of a run, and the print jobs the walls made by themselves (autoPrint). */
type SimPrinter = SimulatedPrinter & { id: number; jobs: number };

/**
 * Starts the simulated printer and makes it every simulator wall's printer (with autoPrint as asked).
 * A printer of an earlier run at another address is replaced; removing it is tried (it is refused while
 * another wall still names it).
 */
async function attachPrinter(http: SimClient, admin: string, walls: SimWall[], opts: { host: string; port: number; autoPrint: boolean }): Promise<SimPrinter> {
  const loopback = opts.host === '127.0.0.1' || opts.host === 'localhost' || opts.host === '::1';
  const printer = new SimulatedPrinter(loopback ? '127.0.0.1' : '0.0.0.0') as SimPrinter;
  await printer.start(opts.port);
  const existing = expectOk(await http.call<{ id: number; name: string; host: string; port: number }[]>('GET', '/api/v1/printers', { auth: admin }), 'listing the printers');
  const same = existing.find((p) => p.name === SIM_PRINTER_NAME && p.host === opts.host && p.port === printer.port);
  printer.id = same?.id ?? expectOk(await http.call<{ id: number }>('POST', '/api/v1/printers', { auth: admin, body: { name: SIM_PRINTER_NAME, host: opts.host, port: printer.port } }), 'registering the simulated printer').id;
  for (const wall of walls) {
    expectOk(await http.call('PATCH', `/api/v1/walls/${wall.id}`, { auth: admin, body: { printerId: printer.id, autoPrint: opts.autoPrint } }), `naming the printer of ${wall.name}`);
  }
  for (const old of existing.filter((p) => p.name === SIM_PRINTER_NAME && p.id !== printer.id)) await http.call('DELETE', `/api/v1/printers/${old.id}`, { auth: admin });
  printer.jobs = 0;
  return printer;
}

/** Waits (at most 10 s) until the printer has received `expected` labels, or (autoPrint) until its jobs are all sent. */
async function labelsArrived(http: SimClient, admin: string, printer: SimPrinter, expected: number | null): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    if (expected !== null && printer.labels.length >= expected) return;
    if (expected === null) {
      const jobs = await http.call<{ status: string }[]>('GET', `/api/v1/printers/${printer.id}/jobs?count=1000`, { auth: admin });
      if (jobs.status === 200) {
        printer.jobs = jobs.body.length;
        if (jobs.body.every((j) => j.status !== 'Queued')) return;
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface WallLights {
  controller: VirtualLightController;
  serialOf: Map<string, string>;
}

/** One virtual controller per wall on the gateway's broker, announcing the wall's slots; none when it cannot connect. */
async function virtualLights(http: SimClient, admin: string, walls: SimWall[], opts: SimOptions): Promise<Map<number, WallLights>> {
  const out = new Map<number, WallLights>();
  if (!opts.mqttUrl) return out;
  for (const wall of walls) {
    const res = await http.call<{ slots: { crc: string; serialNumber: string }[] }>('GET', `/api/v1/walls/${wall.id}`, { auth: admin });
    const slots = expectOk(res, `reading ${wall.name}`).slots;
    try {
      const controller = await VirtualLightController.connect({
        url: opts.mqttUrl,
        prefix: opts.mqttPrefix,
        clientId: clientIdOf(admin),
        controllerId: `simulator-wall-${wall.id}`,
        serialNumbers: slots.map((s) => s.serialNumber),
      });
      out.set(wall.id, { controller, serialOf: new Map(slots.map((s) => [s.crc, s.serialNumber])) });
    } catch (err) {
      opts.progress?.(`no virtual lights: ${(err as Error).message}`);
      break;
    }
  }
  return out;
}

/** Front lights lit now on every virtual controller. */
function litCount(lights: Map<number, WallLights>): number {
  let n = 0;
  for (const { controller } of lights.values()) for (const l of controller.lights.values()) if (l.front?.on) n++;
  return n;
}

export function formatSummary(s: SimSummary): string {
  const refused = Object.entries(s.refusals).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  return [
    `Simulated ${s.seconds} s on ${s.walls} wall(s) with ${s.sorters} sorter(s)`,
    `  scans ${s.scans} (${(s.scans / Math.max(s.seconds, 0.1)).toFixed(1)}/s), confirms ${s.confirms}, completed orders ${s.completedOrders}`,
    `  cancels ${s.cancels}, swaps ${s.swaps}, wrong slots ${s.wrongSlots}, confirmed with a slot button ${s.buttonConfirms}, orders loaded ${s.ordersLoaded}`,
    ...(s.printerAt ? [`  labels printed ${s.labelsPrinted} of ${s.printJobs} print job(s), on the simulated printer at ${s.printerAt}`] : []),
    `  refusals: ${refused}`,
    `  scan latency p50 ${s.scanMs.p50} ms, p95 ${s.scanMs.p95} ms; confirm p50 ${s.confirmMs.p50} ms, p95 ${s.confirmMs.p95} ms`,
  ].join('\n');
}
