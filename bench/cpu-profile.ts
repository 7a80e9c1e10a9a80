import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  file: string;
  /** Wall-clock span of the profile and the part of it the process was not idle, ms. */
  spanMs: number;
  busyMs: number;
  /** Self time by package (node_modules/<pkg>), by app folder (app:<dir>), or by V8 bucket. */
  byPackage: { name: string; ms: number; share: number }[];
  /** Self time by function. */
  byFunction: { name: string; ms: number; share: number }[];
}

function packageOf(url: string, functionName: string, root: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = file.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  // The services built for the bench run from bench/results/dist: name their folders as in the sources.
  const rel = path.relative(root, file).replace(/^bench\/results\/dist\//, '');
  if (rel.startsWith('..')) return file;
  const parts = rel.split(path.sep);
  return `app:${parts.slice(0, Math.min(2, parts.length - 1)).join('/') || parts[0]}`;
}

/** Now on the clock V8 stamps profile samples with (CLOCK_MONOTONIC, µs), to cut a window out of a profile. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Self time per package and per function of a V8 .cpuprofile (node --cpu-prof), counting only the
 * samples inside `window` (monotonic µs) when given: the measured steps, without start-up and seeding.
 */
export function summarizeProfile(file: string, root: string, top = 15, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  let first = Infinity;
  let last = -Infinity;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    first = Math.min(first, at);
    last = Math.max(last, at);
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const pkg = new Map<string, number>();
  const fn = new Map<string, number>();
  let idleUs = 0;
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    totalUs += us;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const p = packageOf(url, functionName, root);
    pkg.set(p, (pkg.get(p) ?? 0) + us);
    const where = url ? `${path.basename(url)}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where} [${p}]`.trim();
    fn.set(key, (fn.get(key) ?? 0) + us);
  }
  const busyUs = totalUs - idleUs;
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: Math.round((us / busyUs) * 1000) / 10 }));
  return {
    file: path.basename(file),
    spanMs: Math.round((window ? last - first : profile.endTime - profile.startTime) / 1000),
    busyMs: Math.round(busyUs / 1000),
    byPackage: rank(pkg),
    byFunction: rank(fn),
  };
}

export function printProfile(s: ProfileSummary, title: string): void {
  console.log(`\n${title}: ${s.file} · ${s.busyMs} ms busy of ${s.spanMs} ms`);
  console.log('  self time by package / folder:');
  for (const p of s.byPackage) console.log(`    ${String(p.share).padStart(5)} %  ${String(p.ms).padStart(7)} ms  ${p.name}`);
  console.log('  self time by function:');
  for (const f of s.byFunction) console.log(`    ${String(f.share).padStart(5)} %  ${String(f.ms).padStart(7)} ms  ${f.name}`);
}

// `tsx bench/cpu-profile.ts <file.cpuprofile>...`: the same summary for any profile.
if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  for (const f of process.argv.slice(2)) printProfile(summarizeProfile(f, root, 25), 'profile');
}
