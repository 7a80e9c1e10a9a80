import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { WORKER_KIND_NAMES, type WorkerKind } from '../../shared/runtime/worker-kinds';

const ROOT = path.resolve(__dirname, '../..');

/** The packages a fresh process has loaded after loading one kind's code (workers/registry.ts), read from require.cache. */
async function packagesLoadedBy(kind: WorkerKind): Promise<string[]> {
  const script = `
    require('./workers/registry').WORKER_KINDS[${JSON.stringify(kind)}]().then(() => {
      const names = Object.keys(require.cache).map((f) => /[\\\\/]node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(f)?.[1]).filter(Boolean);
      process.stdout.write(JSON.stringify([...new Set(names)]), () => process.exit(0));
    });`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, timeout: 100_000 });
  return JSON.parse(stdout) as string[];
}

/*
 * A kind loads its own code and no other kind's: the label renderers (pdfkit) only where labels are
 * rendered. Each kind is loaded in a process of its own, as a worker of that kind alone would be.
 */
describe("a worker kind's module graph", () => {
  it('holds the label renderer in the labels kind only', async () => {
    const loaded: Record<string, boolean> = {};
    // One at a time: eight compiling processes at once would only crowd a small machine.
    for (const k of WORKER_KIND_NAMES) loaded[k] = (await packagesLoadedBy(k)).includes('pdfkit');
    expect(loaded).toEqual(Object.fromEntries(WORKER_KIND_NAMES.map((k) => [k, k === 'labels'])));
  }, 300_000);
});
