import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * bench/'s modules import one another in one direction: the entry points (what package.json's scripts
 * and the docs run) and the scenarios above, bench/lib below, with no import circle anywhere in bench/.
 */

const BENCH = path.resolve(__dirname, '../../bench');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'results' ? [] : files(path.join(dir, e.name))) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Each bench module → the bench modules it imports (static, type-only and dynamic imports alike). */
function importGraph(dir: string): Map<string, string[]> {
  const all = files(dir);
  const graph = new Map<string, string[]>();
  for (const f of all) {
    const source = readFileSync(f, 'utf8');
    const targets = [...source.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => `${path.resolve(path.dirname(f), m[1]!)}.ts`);
    graph.set(f, targets.filter((t) => all.includes(t)));
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(path.relative(BENCH, w));
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe("bench/'s imports", () => {
  const graph = importGraph(BENCH);

  it('form no circle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  // bench/cpu-usage.ts (the CPU meter, which imports nothing of bench/) stays where every bench imports it.
  it('go from bench/lib only to bench/lib and the CPU meter', () => {
    const lib = path.join(BENCH, 'lib');
    const outward = [...graph].flatMap(([f, targets]) => (f.startsWith(lib) ? targets.filter((t) => !t.startsWith(lib) && !t.endsWith('cpu-usage.ts')).map((t) => `${path.relative(BENCH, f)} → ${path.relative(BENCH, t)}`) : []));
    expect(outward).toEqual([]);
  });
});
