import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The layers point one way (docs/architecture.md, "Layout"): a file's top folder says which process
 * runs it, and an import against the direction below would put one process's code into another's (the
 * API carrying a worker's module) or tie two layers into a knot. Every import is read with the
 * TypeScript parser, so an import named in a comment or a string is not taken for one.
 */
const ROOT = path.resolve(__dirname, '../..');
const LAYERS = ['services', 'shared', 'machines', 'workers'] as const;
type Layer = (typeof LAYERS)[number];

/** What each top folder may import besides itself. */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  shared: [],
  machines: ['shared'],
  workers: ['shared', 'machines'],
  services: ['shared', 'machines'],
};

/**
 * Folders inside a top folder that point one way: the first may import the second, never the reverse
 * (not even a type). shared/queue is the BullMQ transport, generic over what its jobs carry;
 * shared/commands builds on it (docs/architecture.md, "Commands"). workers/pipeline is the consumers'
 * framework, generic over what a kind gives its consumers: every other part of workers/ (each kind's
 * folder, the registry) builds on it, and it knows none of them.
 */
const FOLDER_DIRECTIONS: readonly { from: string; to: string }[] = [
  { from: 'shared/commands/', to: 'shared/queue/' },
  ...readdirSync(path.join(ROOT, 'workers'), { withFileTypes: true })
    .filter((d) => d.name !== 'pipeline')
    .map((d) => ({ from: d.isDirectory() ? `workers/${d.name}/` : `workers/${d.name}`, to: 'workers/pipeline/' })),
];

interface Edge {
  /** Both relative to the repository root, with forward slashes. */
  from: string;
  to: string;
  /** The import as written. */
  specifier: string;
  /** `import type` / `export type`: gone at run time, so it cannot take part in a load-order cycle. */
  typeOnly: boolean;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

function resolveImport(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null; // a package
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${rel(fromFile)}: import '${specifier}' resolves to no file`);
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x'` runs the module
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function importsOf(file: string): Edge[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const target = resolveImport(file, specifier);
    if (target) edges.push({ from: rel(file), to: rel(target), specifier, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, isTypeOnlyImport(node));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, node.isTypeOnly);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      add(node.moduleReference.expression.text, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const required = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (dynamic || required) add(node.arguments[0].text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true); // `import('./x').T` in a type
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const layerOf = (file: string): Layer | null => (LAYERS as readonly string[]).find((l) => file.startsWith(`${l}/`)) as Layer | undefined ?? null;

/** Every import that leaves its top folder the wrong way, as `file: import 'x' (a → b)`. */
function directionViolations(edges: readonly Edge[]): string[] {
  return edges.flatMap((e) => {
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    if (!from || !to || from === to || MAY_IMPORT[from].includes(to)) return [];
    return [`${e.from}: import '${e.specifier}' (${from} → ${to}; ${from} may import ${MAY_IMPORT[from].join(', ') || 'no other top folder'})`];
  });
}

/** Every import from a folder to one that builds on it (FOLDER_DIRECTIONS), as `file: import 'x' (b → a; a builds on b)`. */
function folderViolations(edges: readonly Edge[]): string[] {
  return edges.flatMap((e) =>
    FOLDER_DIRECTIONS.filter((d) => e.from.startsWith(d.to) && e.to.startsWith(d.from)).map(
      (d) => `${e.from}: import '${e.specifier}' (${d.to.slice(0, -1)} → ${d.from.slice(0, -1)}; ${d.from.slice(0, -1)} builds on ${d.to.slice(0, -1)})`,
    ),
  );
}

/**
 * Cycles of imports that run (type-only ones left out): in a cycle one module reads another before it
 * has finished loading, and a cycle across top folders is a layer that points both ways. Each cycle
 * is listed once, as its chain of `file: import 'x'`.
 */
function importCycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, Edge[]>();
  for (const e of edges) if (!e.typeOnly) next.set(e.from, [...(next.get(e.from) ?? []), e]);
  // Tarjan's strongly connected components, then one cycle through each component.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const { to: w } of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).some((e) => e.to === v)) components.push(component);
    }
  };
  for (const file of next.keys()) if (!index.has(file)) connect(file);

  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0];
    // Breadth-first from start back to start inside the component: the shortest cycle through it.
    const via = new Map<string, Edge>();
    const queue = [start];
    let closing: Edge | undefined;
    while (queue.length && !closing) {
      const v = queue.shift()!;
      for (const e of next.get(v) ?? []) {
        if (!members.has(e.to)) continue;
        if (e.to === start) {
          closing = e;
          break;
        }
        if (!via.has(e.to)) {
          via.set(e.to, e);
          queue.push(e.to);
        }
      }
    }
    const chain: Edge[] = [closing!];
    for (let e = via.get(closing!.from); e; e = via.get(e.from)) chain.unshift(e);
    return chain.map((e) => `${e.from}: import '${e.specifier}'`).join('\n  → ');
  });
}

describe('import direction', () => {
  const edges = LAYERS.flatMap((layer) => tsFiles(path.join(ROOT, layer))).flatMap(importsOf);

  it('reads the imports of every top folder', () => {
    // A parser that found nothing would pass everything below.
    for (const layer of LAYERS) expect(edges.some((e) => e.from.startsWith(`${layer}/`))).toBe(true);
    expect(edges).toContainEqual(expect.objectContaining({ from: 'workers/registry.ts', to: 'workers/sorting/sorting.worker.ts', typeOnly: false }));
  });

  it('goes only the allowed ways between top folders: shared → none, machines → shared, workers and services → shared, machines', () => {
    expect(directionViolations(edges)).toEqual([]);
  });

  it('goes one way between folders that build on each other: shared/commands → shared/queue, the rest of workers → workers/pipeline', () => {
    expect(edges.some((e) => e.from.startsWith('shared/commands/') && e.to.startsWith('shared/queue/'))).toBe(true);
    expect(edges.some((e) => e.from.startsWith('workers/lights/') && e.to.startsWith('workers/pipeline/'))).toBe(true);
    expect(folderViolations(edges)).toEqual([]);
  });

  it('has no cycle of imports between files, and so none between top folders', () => {
    expect(importCycles(edges)).toEqual([]);
  });

  it('names the file and the import of a wrong-way import and of a cycle', () => {
    const edge = (from: string, to: string, specifier: string, typeOnly = false): Edge => ({ from, to, specifier, typeOnly });
    expect(directionViolations([
      edge('services/api/start-api.ts', 'workers/labels/render-pool.ts', '../../workers/labels/render-pool'),
      edge('shared/db/entities/sort-box.entity.ts', 'machines/slot.machine.ts', '../../../machines/slot.machine', true),
      edge('workers/stats/stats.worker.ts', 'shared/runtime/runtime.ts', '../../shared/runtime/runtime'),
    ])).toEqual([
      "services/api/start-api.ts: import '../../workers/labels/render-pool' (services → workers; services may import shared, machines)",
      "shared/db/entities/sort-box.entity.ts: import '../../../machines/slot.machine' (shared → machines; shared may import no other top folder)",
    ]);
    expect(folderViolations([
      edge('shared/queue/jobs.ts', 'shared/commands/commands.ts', '../commands/commands', true),
      edge('shared/commands/partitioning.ts', 'shared/queue/jobs.ts', '../queue/jobs'),
    ])).toEqual(["shared/queue/jobs.ts: import '../commands/commands' (shared/queue → shared/commands; shared/commands builds on shared/queue)"]);
    expect(importCycles([
      edge('machines/a.ts', 'shared/b.ts', '../shared/b'),
      edge('shared/b.ts', 'shared/c.ts', './c'),
      edge('shared/c.ts', 'machines/a.ts', '../machines/a'),
      edge('shared/d.ts', 'shared/e.ts', './e', true),
      edge('shared/e.ts', 'shared/d.ts', './d'),
    ])).toEqual(["machines/a.ts: import '../shared/b'\n  → shared/b.ts: import './c'\n  → shared/c.ts: import '../machines/a'"]);
  });
});
