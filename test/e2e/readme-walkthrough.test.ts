import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { loadConfig } from '../../shared/config/config';
import { initOrm } from '../../shared/db/orm';
import { seedDemo, type DemoSignIn } from '../../services/seed/seed-demo.use-case';
import { decodePdfPages } from '../support/pdf-barcodes';
import { TEST_PG_BASE, dropDatabase, templateDbName, testRunId, withAdmin } from '../support/test-db';
import { signIn, startTestApi, waitFor, type TestApi } from '../support/test-api';

/*
 * The README's "A first sort", run as pasted: its fenced shell blocks are read from README.md itself
 * (so the walkthrough and this test cannot drift apart) and run one after another in one bash, against
 * the real API and workers on a freshly seeded demo database, listening on an ephemeral port that the
 * walkthrough finds through SERVICE_URL. Each block's answer is checked before the next one runs.
 */
const ROOT = path.join(__dirname, '../..');

/** The fenced `sh` blocks of the README section headed `## <title>`, in order. */
function readmeShellBlocks(readme: string, title: string): string[] {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section '## ${title}'`);
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The JSON documents a block printed: one-line ones, and `show`'s indented ones (a line `{` to a line `}`). */
function jsonDocs(output: string): any[] {
  const docs: any[] = [];
  let open: string[] | null = null;
  for (const line of output.split('\n')) {
    if (open) {
      open.push(line);
      if (line === '}' || line === ']') {
        docs.push(JSON.parse(open.join('\n')));
        open = null;
      }
    } else if (line === '{' || line === '[') {
      open = [line];
    } else if (/^[[{].*[}\]]$/.test(line)) {
      docs.push(JSON.parse(line));
    }
  }
  return docs;
}

/** One bash for the whole walkthrough, so the blocks share variables as in a terminal. */
class Shell {
  private output = '';
  private exited = false;
  private readonly bash: ChildProcessWithoutNullStreams;

  constructor(private readonly dir: string, env: Record<string, string | undefined>) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd: dir, env });
    this.bash.stdout.on('data', (d: Buffer) => (this.output += d.toString()));
    this.bash.stderr.on('data', (d: Buffer) => (this.output += d.toString()));
    this.bash.once('exit', (code) => {
      this.exited = true;
      this.output += `\n[bash exited with ${code}]\n`;
    });
    // Strict, so a failing command stops the walkthrough here instead of going on with empty variables.
    this.bash.stdin.write('exec 2>&1\nset -euo pipefail\n');
  }

  /** Runs a block (its stdin /dev/null, as a paste would not feed it) and answers what it printed. */
  async run(block: string, label: string): Promise<string> {
    const file = path.join(this.dir, `${label}.sh`);
    writeFileSync(file, block);
    const marker = `@@${randomUUID()}@@`;
    const from = this.output.length;
    this.bash.stdin.write(`source ${JSON.stringify(file)} < /dev/null\nprintf '\\n${marker}\\n'\n`);
    await waitFor(
      () => {
        if (this.exited) throw new Error(`the walkthrough stopped at ${label}:\n${block}\n--- output ---\n${this.output.slice(from)}`);
        return this.output.indexOf(marker, from) >= 0;
      },
      { timeoutMs: 60_000, intervalMs: 25, what: `${label} of the README walkthrough to finish` },
    );
    return this.output.slice(from, this.output.indexOf(marker, from));
  }

  close(): void {
    if (!this.exited) this.bash.kill('SIGKILL');
  }
}

describe('README: "A first sort" runs as pasted against a started service', () => {
  const blocks = readmeShellBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'A first sort');
  const database = `sorting_test_${testRunId()}_readme_${randomUUID().slice(0, 8)}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'readme-walkthrough-'));
  let api: TestApi;
  let server: Server;
  let shell: Shell;
  let demo: DemoSignIn;
  let managerAuth: string;

  beforeAll(async () => {
    await withAdmin((pg) => pg.query(`create database "${database}" template "${templateDbName()}"`));
    const url = `${TEST_PG_BASE}/${database}`;
    const orm = await initOrm(url, 2);
    try {
      demo = (await seedDemo(orm.em.fork(), loadConfig(), pino({ level: 'silent' })))!;
    } finally {
      await orm.close();
    }
    api = await startTestApi({
      workers: ['sorting', 'outbox', 'audit', 'stats', 'labels'],
      env: { DATABASE_URL: url, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-readme` },
    });
    server = createServer(api.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    managerAuth = `Bearer ${await signIn(api.app, 'manager@demo.local', 'demo-manager-1')}`;
    const { PORT: _port, ...env } = process.env;
    shell = new Shell(dir, { ...env, SERVICE_URL: serviceUrl, PATH: `${path.dirname(process.execPath)}:${env.PATH ?? ''}` });
  }, 120_000);

  afterAll(async () => {
    shell?.close();
    if (server) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    await api?.close();
    await withAdmin((pg) => dropDatabase(pg, database));
    rmSync(dir, { recursive: true, force: true });
  });

  it('has the nine steps this test checks, each a shell block', () => {
    expect(blocks).toHaveLength(9);
    expect(blocks[0]).toContain('SERVICE_URL=${SERVICE_URL:-');
  });

  it('walks from the health checks through scan, confirm, label and release to the audit log, the figures, an import and the slot labels', async () => {
    // 0. Health, and the helper.
    const health = await shell.run(blocks[0]!, 'step-0');
    expect(jsonDocs(health)).toEqual([{ status: 'ok' }, expect.objectContaining({ status: 'ready' })]);

    // 1. Signed in, the wall found.
    const signedIn = jsonDocs(await shell.run(blocks[1]!, 'step-1'));
    expect(signedIn[0]).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    expect(signedIn[2]).toEqual([expect.objectContaining({ id: demo.wallId, name: 'Jackson St' })]);
    expect((await shell.run('printf "%s\\n" "$WALL"', 'probe-wall')).trim()).toBe(String(demo.wallId));

    // 2. Connected, in the first color.
    const [session] = jsonDocs(await shell.run(blocks[2]!, 'step-2'));
    expect(session).toMatchObject({ wallId: demo.wallId, status: 'Connected', color: 'Red', token: expect.any(String) });

    // 3. The scan: order 1000, slot 1 (the banner's slot), nothing more to bring.
    const slot = demo.barcodes.slot;
    const [item] = jsonDocs(await shell.run(blocks[3]!, 'step-3'));
    expect(item).toMatchObject({ status: 'PendingConfirmation', orderId: demo.firstSort.orderId, sku: 'MUG-CERAMIC-12OZ', barcode: 'MUG12', position: 1, crc: slot.crc, color: 'Red', remainingUnits: 0 });
    expect(slot.sorterBarcode).toBe('A-583032E0');

    // 4. Confirmed with the slot's A- code: the order is sorted, in that slot.
    const [confirmed, order] = jsonDocs(await shell.run(blocks[4]!, 'step-4'));
    expect(confirmed).toMatchObject({ id: item.id, status: 'Confirmed', confirmedUnits: 1, units: 1 });
    expect(order).toMatchObject({ id: 1000, sortStatus: 'Sorted', wallId: demo.wallId, crc: slot.crc, items: [{ sku: 'MUG-CERAMIC-12OZ', qty: 1, sortedQty: 1, pendingQty: 0 }] });

    // 5. The shipper's label (ZPL shown, PDF saved) and release.
    const shipped = await shell.run(blocks[5]!, 'step-5');
    expect(shipped).toContain('^XA');
    expect(shipped).toContain('^FDORDER 1000^FS');
    expect(shipped).toContain(`^FDSLOT 1 (${slot.crc})^FS`);
    expect(shipped).toContain('^FDWALL Jackson St^FS');
    expect(readFileSync(path.join(dir, 'label.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    const released = jsonDocs(shipped).at(-1);
    expect(released).toMatchObject({ crc: slot.crc, position: 1, status: 'Empty', orderId: null, releasedOrderId: 1000, cancelledItems: [] });

    // 6. As a person would, a moment later: the audit log and the figures have followed the events.
    await waitFor(
      async () => {
        const log = await request(api.app).get(`/api/v1/audit-logs?wallId=${demo.wallId}&count=20`).set('Authorization', managerAuth);
        const stats = await request(api.app).get('/api/v1/insights/stats').query({ from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() }).set('Authorization', managerAuth);
        return log.body.some((r: { type: string }) => r.type === 'sort-box.released') && stats.body.sortedOrders === 1;
      },
      { timeoutMs: 30_000, what: 'the audit log and the statistics to follow the events' },
    );
    const read = await shell.run(blocks[6]!, 'step-6');
    const messages = read.split('\n').filter((l) => l && !/^[\s{}[\]"]/.test(l));
    expect(messages).toEqual([
      "Sam Sorter connected to wall 'Jackson St' (Red).",
      "Sam Sorter scanned MUG-CERAMIC-12OZ ('MUG12') for order 1000: slot 1.",
      expect.stringMatching(/^(Sam Sorter confirmed 1 × MUG-CERAMIC-12OZ into slot 1 \(order 1000\)\.|Order 1000 is complete in slot 1 of wall 'Jackson St': ready for the shipper\.)$/),
      expect.stringMatching(/^(Sam Sorter confirmed 1 × MUG-CERAMIC-12OZ into slot 1 \(order 1000\)\.|Order 1000 is complete in slot 1 of wall 'Jackson St': ready for the shipper\.)$/),
      expect.stringMatching(new RegExp(`^License plate LP\\d{10} \\(ZPL\\) printed for order 1000 from slot 1 \\(${slot.crc}\\) of wall 'Jackson St' by Sam Sorter\\.$`)),
      expect.stringMatching(/^License plate LP\d{10} \(PDF\) printed for order 1000 .* by Sam Sorter \(reprint 1\)\.$/),
      "Sam Sorter released slot 1 of wall 'Jackson St' (order 1000).",
    ]);
    expect(new Set(messages.slice(2, 4)).size).toBe(2);
    const stats = jsonDocs(read).at(-1);
    expect(stats).toMatchObject({ scans: 1, confirmedUnits: 1, sortedOrders: 1, cancelledItems: 0, failedScans: 0, topProducts: [{ sku: 'MUG-CERAMIC-12OZ', units: 1 }] });

    // 7. A CSV import: the dry run names the unknown SKU in row 3 and changes nothing; the fixed file imports.
    const [, dryRun, imported] = jsonDocs(await shell.run(blocks[7]!, 'step-7'));
    expect(dryRun).toMatchObject({ dryRun: true, imported: false, rowsRead: 3, records: 2, created: 2, problems: [{ row: 3, column: 'sku', code: 'unknown-sku' }] });
    expect(imported).toMatchObject({ dryRun: false, imported: true, rowsRead: 3, records: 2, created: 2, updated: 0, problems: [] });
    const order2001 = await request(api.app).get('/api/v1/orders/2001').set('Authorization', managerAuth);
    expect(order2001.body.items.map((i: { sku: string; qty: number }) => `${i.sku}x${i.qty}`).sort()).toEqual(['MUG-CERAMIC-12OZx2', 'TSHIRT-BLK-Mx1']);

    // 8. The slot labels the console prints: slot 1's A- and B- barcodes decode from the first page.
    await shell.run(blocks[8]!, 'step-8');
    const [firstPage] = decodePdfPages(readFileSync(path.join(dir, 'slot-labels.pdf')));
    expect(firstPage).toEqual(expect.arrayContaining([slot.sorterBarcode, `B-${slot.crc}`]));
  }, 120_000);
});
