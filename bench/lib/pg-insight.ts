import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Client as PgClient } from 'pg';
import type { NamedStatement, Query } from '../../shared/db/named-sql';
import type { StatementTotals } from './budget';

/*
 * What PostgreSQL does per pair (docs/benchmarks.md, "The bad-day scenario"): bytes written per table,
 * and per statement its calls, mean time and buffers, from pg_stat_statements when the server loads it,
 * else from EXPLAIN (ANALYZE, BUFFERS) of named statements with real parameters.
 */

/** Total size (heap, indexes, TOAST) of every table of the public schema, bytes. */
export async function tableSizes(pg: PgClient): Promise<Map<string, number>> {
  const { rows } = await pg.query<{ name: string; bytes: string }>(
    `select c.relname as name, pg_total_relation_size(c.oid) as bytes, true as bench_probe
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p')`,
  );
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}

/** Growth per pair of each table that grew, largest first (sizes move by 8 kB pages: read short steps as coarse). */
export function bytesPerPair(before: Map<string, number>, after: Map<string, number>, pairs: number): Record<string, number> {
  if (!pairs) return {};
  return Object.fromEntries(
    [...after]
      .map(([name, bytes]) => [name, (bytes - (before.get(name) ?? 0)) / pairs] as const)
      .filter(([, b]) => b > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, b]) => [name, Math.round(b)]),
  );
}

const collapse = (sql: string) => sql.replace(/\s+/g, ' ').trim();

/**
 * The named statements of the service (shared/db/named-sql.ts), by their SQL text: every module under
 * services/, shared/ and workers/ that defines some is loaded and its exported queries collected. Lets a
 * pg_stat_statements row carry the statement's name.
 */
export function namedStatements(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p);
      return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
    });
  for (const file of ['services', 'shared', 'workers'].flatMap((d) => walk(path.join(root, d)))) {
    const text = readFileSync(file, 'utf8');
    if (!/named-sql'/.test(text) || !/\bquery</.test(text)) continue;
    const mod = require(file) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const st = (value as { statement?: NamedStatement } | null)?.statement;
      if (typeof value === 'function' && st && typeof st.text === 'string') out.set(collapse(st.text), st.name);
    }
  }
  return out;
}

export interface StatementFigure {
  /** The named statement's name, else the start of its SQL. */
  statement: string;
  calls: number;
  callsPerPair: number;
  meanMs: number;
  /** Shared buffers hit + read per call. */
  buffersPerCall: number;
  /** Of which read from outside PostgreSQL's cache. */
  readPerCall: number;
  rowsPerCall: number;
}

/**
 * pg_stat_statements of this database, if the server loads the library (shared_preload_libraries; a
 * restart): reset at a step's start, read at its end. `loaded` false says why not.
 */
export class StatementStats {
  private constructor(
    readonly loaded: boolean,
    readonly why: string | null,
    private readonly names: Map<string, string>,
  ) {}

  static async open(pg: PgClient, root: string): Promise<StatementStats> {
    try {
      await pg.query('create extension if not exists pg_stat_statements');
      await pg.query('select 1 from pg_stat_statements limit 1');
    } catch (err) {
      return new StatementStats(false, `not loaded (${(err as Error).message}); docs/benchmarks.md says how to load it`, new Map());
    }
    return new StatementStats(true, null, namedStatements(root));
  }

  async reset(pg: PgClient): Promise<void> {
    if (!this.loaded) return;
    await pg.query('select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)');
  }

  /** Every statement's calls, time and shared buffers since the reset, the most time first (the bench's own, marked `bench_probe`, left out). */
  async totals(pg: PgClient, top = 40): Promise<StatementTotals[]> {
    return (await this.statements(pg, top)).map((r) => ({ statement: r.statement, calls: r.calls, totalMs: r.total, buffers: r.hit + r.read }));
  }

  /** The statements that took the most time since the reset, with their cost per call and calls per pair. */
  async read(pg: PgClient, pairs: number, top = 12): Promise<StatementFigure[]> {
    return (await this.statements(pg, top)).map((r) => ({
      statement: r.statement,
      calls: r.calls,
      callsPerPair: pairs ? Math.round((r.calls / pairs) * 100) / 100 : NaN,
      meanMs: Math.round(r.mean * 1000) / 1000,
      buffersPerCall: Math.round(((r.hit + r.read) / r.calls) * 10) / 10,
      readPerCall: Math.round((r.read / r.calls) * 10) / 10,
      rowsPerCall: Math.round((r.rows / r.calls) * 10) / 10,
    }));
  }

  /** The `top` statements of this database by time since the reset, named; the bench's own (marked `bench_probe`) left out. */
  private async statements(pg: PgClient, top: number) {
    if (!this.loaded) return [];
    const { rows } = await pg.query<{ query: string; calls: string; total: number; mean: number; hit: string; read: string; rows: string }>(
      `select query, calls, total_exec_time as total, mean_exec_time as mean, shared_blks_hit as hit, shared_blks_read as read, rows
         from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%' and query not like '%bench_probe%'
        order by total_exec_time desc limit $1`,
      [top],
    );
    return rows.map((r) => ({ statement: this.nameOf(collapse(r.query)), calls: Number(r.calls), total: r.total, mean: r.mean, hit: Number(r.hit), read: Number(r.read), rows: Number(r.rows) }));
  }

  /** A statement's name: the named statement of that text, else the name its leading SQL comment starts with, else the start of its text. */
  private nameOf(text: string): string {
    const named = this.names.get(text) ?? /^\/\*\s*([a-z][a-z0-9-]*)[\s:*]/.exec(text)?.[1];
    return named ?? (text.length > 70 ? `${text.slice(0, 70)}…` : text);
  }
}

export interface ExplainFigure {
  statement: string;
  executionMs: number;
  planningMs: number;
  buffers: number;
  /** The plan's top node and the estimated against the actual rows: a misestimate shows here. */
  topNode: string;
  estimatedRows: number;
  actualRows: number;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of a named statement with real parameters, in a transaction rolled back
 * (ANALYZE executes it): what one call costs on the data as it stands, with the statistics as they are.
 */
export async function explainNamed<P extends object>(pg: PgClient, q: Query<P, unknown>, params: P): Promise<ExplainFigure> {
  const { statement } = q;
  await pg.query('begin');
  try {
    const { rows } = await pg.query<{ 'QUERY PLAN': [{ Plan: Record<string, number | string>; 'Execution Time': number; 'Planning Time': number }] }>(
      `explain (analyze, buffers, format json) ${statement.text}`,
      statement.values(params),
    );
    const [plan] = rows[0]!['QUERY PLAN'];
    const top = plan.Plan;
    return {
      statement: statement.name,
      executionMs: Math.round(plan['Execution Time'] * 1000) / 1000,
      planningMs: Math.round(plan['Planning Time'] * 1000) / 1000,
      buffers: Number(top['Shared Hit Blocks'] ?? 0) + Number(top['Shared Read Blocks'] ?? 0),
      topNode: String(top['Node Type']),
      estimatedRows: Number(top['Plan Rows']),
      actualRows: Number(top['Actual Rows']),
    };
  } finally {
    await pg.query('rollback');
  }
}
