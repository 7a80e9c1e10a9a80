import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { AppError } from '../../../../shared/errors/app-error';
import { emTransactionSql } from '../../../../shared/db/orm-sql';
import type { SqlRunner } from '../../../../shared/db/named-sql';
import { CsvSyntaxError, otherDelimiter, parseCsv, type CsvRecord } from '../../../../shared/text/csv';
import { RowsRefused, type BulkOptions, type BulkResult, type RowProblemCode } from './bulk';

/*
 * Orders, products and picklists from a file, as an OMS exports them (docs/api.md §3, "Imports"): a
 * CSV text or the JSON array of the PUT loader. Each file becomes the rows of the PUT loader and goes
 * through its own checks and writes (upsertOrders, ...), in one transaction: all or nothing. A dry run,
 * and an import with a problem, roll that transaction back, so a report says what the import would
 * have met at that moment, down to the stored data, without changing anything.
 */

/** The most data rows of one import (a CSV's records after the header, or a JSON array's elements). */
export const MAX_IMPORT_ROWS = 100_000;
/**
 * How long each statement of an import may take: its statements touch up to 100,000 rows, and a file
 * is not a scan waiting at the wall, so the API's DATABASE_QUERY_TIMEOUT_MS (meant for those) would
 * refuse a large import on a busy database as an outage.
 */
export const IMPORT_QUERY_TIMEOUT_MS = 60_000;
/** The most problems a report lists; `problemCount` still counts them all. */
export const MAX_REPORTED_PROBLEMS = 10_000;

export type ImportProblemCode =
  | RowProblemCode
  | 'empty-file'
  | 'wrong-delimiter'
  | 'malformed-csv'
  | 'missing-column'
  | 'unknown-column'
  | 'duplicate-column'
  | 'too-many-rows'
  | 'missing-value'
  | 'bad-number'
  | 'bad-quantity'
  | 'bad-date'
  | 'conflicting-value';

/** One problem of an import: where (a CSV's row as a spreadsheet numbers it, header 1; a JSON element's index) and what. */
export interface ImportProblem {
  row: number;
  /** The CSV column (`qty`), or the field within the JSON element (`items[0].qty`); empty for the whole row or file. */
  column: string;
  code: ImportProblemCode;
  detail: string;
}

export interface ImportReport {
  dryRun: boolean;
  /** Whether the rows were written (never in a dry run, never with a problem). */
  imported: boolean;
  /** Data rows read: a CSV's records after the header, or the JSON array's elements. */
  rowsRead: number;
  /** The orders, products or picklists those rows make. */
  records: number;
  /** Records that do not exist yet (created by the import), and records that exist (replaced whole). */
  created: number;
  updated: number;
  problemCount: number;
  problems: ImportProblem[];
}

type PathKey = string | number;

/** A record of the import before its checks: the PUT loader's row as read, and where each of its fields came from. */
export interface Candidate {
  value: Record<string, unknown>;
  /** The row and column a field of `value` was read from. */
  locate(path: readonly PathKey[]): { row: number; column: string };
}

/** A CSV's columns as an import knows them, by the names its header gives. */
export interface Columns {
  /** The field index of a column, or undefined when the header lacks it. */
  index: Map<string, number>;
}

export interface ImportKind<Row> {
  /** 'orders', 'products', 'picklists': for the details. */
  what: string;
  /** The PUT loader's row schema. */
  schema: z.ZodType<Row>;
  /** Every column of the CSV form, and whether a file must have it. */
  columns: readonly { name: string; required: boolean }[];
  /** The candidates of the data records (cells converted, rows grouped), reporting what cannot be read. */
  fromCsv(records: CsvRecord[], columns: Columns, problems: ProblemList): Candidate[];
  /** A problem code for a schema issue at `path`, whose value is `value`. */
  issueCode(path: readonly PathKey[], value: unknown): ImportProblemCode;
  /** How many of the rows' keys are stored already (to count created and updated). */
  existing(sql: SqlRunner, clientId: number, rows: Row[]): Promise<number>;
  /** The PUT loader's use-case. */
  upsert(em: EntityManager, clientId: number, rows: Row[], opts: BulkOptions): Promise<BulkResult<unknown>>;
}

/** The problems of an import, at most one per row and column (the first one found says it). */
export class ProblemList {
  readonly list: ImportProblem[] = [];
  private readonly seen = new Set<string>();

  add(row: number, column: string, code: ImportProblemCode, detail: string): void {
    const key = `${row}\u0000${column}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push({ row, column, code, detail });
  }

  get size(): number {
    return this.list.length;
  }
}

/** `items[0].sku` as ['items', 0, 'sku']. */
function parsePath(field: string): PathKey[] {
  return [...field.matchAll(/\[(\d+)\]|([^.[\]]+)/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[2]!));
}

/** ['items', 0, 'sku'] as `items[0].sku`. */
export function pathText(path: readonly PathKey[]): string {
  return path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${k}` : k), '');
}

function valueAt(value: unknown, path: readonly PathKey[]): unknown {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PathKey, unknown>)[k];
  }
  return v;
}

/** The problem code of a schema issue every kind shares: a value missing, else an invalid one. */
export function commonIssueCode(value: unknown): ImportProblemCode {
  return value === undefined || value === null ? 'missing-value' : 'invalid-value';
}

const ROLLBACK = Symbol('roll the import back');

/**
 * Reads an import's body (`text`: a CSV; else the JSON array of the PUT loader), checks every row,
 * and writes them unless `dryRun` or a problem: then nothing is written. A dry run answers the report;
 * an import with a problem is refused with it (400 validation-failed, the report in `report`).
 */
export async function runImport<Row>(
  em: EntityManager,
  clientId: number,
  kind: ImportKind<Row>,
  body: string | unknown[],
  dryRun: boolean,
): Promise<ImportReport> {
  const problems = new ProblemList();
  const read = typeof body === 'string' ? readCsv(kind, body, problems) : readJson(body, problems);
  const report: ImportReport = { dryRun, imported: false, rowsRead: read.rowsRead, records: read.candidates.length, created: 0, updated: 0, problemCount: 0, problems: [] };

  const valid: { row: Row; from: Candidate }[] = [];
  for (const c of read.candidates) {
    const parsed = kind.schema.safeParse(c.value);
    if (parsed.success) {
      valid.push({ row: parsed.data, from: c });
      continue;
    }
    for (const issue of parsed.error.issues) {
      const { row, column } = c.locate(issue.path as PathKey[]);
      problems.add(row, column, kind.issueCode(issue.path as PathKey[], valueAt(c.value, issue.path as PathKey[])), issue.message);
    }
  }

  if (valid.length > 0) {
    const rows = valid.map((v) => v.row);
    try {
      await em.transactional(async (tx) => {
        const existing = await kind.existing(emTransactionSql(tx, false, IMPORT_QUERY_TIMEOUT_MS), clientId, rows);
        report.updated = existing;
        report.created = rows.length - existing;
        try {
          await kind.upsert(tx, clientId, rows, { queryTimeoutMs: IMPORT_QUERY_TIMEOUT_MS });
        } catch (err) {
          if (!(err instanceof RowsRefused)) throw err;
          for (const p of err.problems) {
            const { row, column } = valid[p.row]!.from.locate(parsePath(p.field));
            problems.add(row, column, p.code, p.message);
          }
        }
        if (dryRun || problems.size > 0) throw ROLLBACK;
      });
    } catch (err) {
      if (err !== ROLLBACK) throw err;
    }
  }
  report.imported = !dryRun && problems.size === 0;

  const sorted = problems.list.sort((a, b) => a.row - b.row || a.column.localeCompare(b.column));
  report.problemCount = sorted.length;
  report.problems = sorted.slice(0, MAX_REPORTED_PROBLEMS);
  if (!dryRun && sorted.length > 0) {
    const rowsWith = new Set(sorted.map((p) => p.row)).size;
    throw new AppError(
      'validation-failed',
      `The import has ${sorted.length === 1 ? '1 problem' : `${sorted.length} problems`} in ${rowsWith === 1 ? '1 row' : `${rowsWith} rows`}; ` +
        `nothing was imported. Fix ${sorted.length === 1 ? 'it' : 'them'} (report.problems lists ${sorted.length === 1 ? 'it' : 'each'} with its row and column) and send the whole file again; ?dryRun=true checks a file without importing it.`,
      {
        errors: report.problems.slice(0, 1000).map((p) => ({ path: typeof body === 'string' ? `row ${p.row}${p.column ? `, ${p.column}` : ''}` : `[${p.row}]${p.column ? `.${p.column}` : ''}`, message: p.detail })),
        extensions: { report },
      },
    );
  }
  return report;
}

function readJson(body: unknown[], problems: ProblemList): { rowsRead: number; candidates: Candidate[] } {
  if (body.length > MAX_IMPORT_ROWS) {
    problems.add(0, '', 'too-many-rows', `The array has ${body.length} rows; an import takes at most ${MAX_IMPORT_ROWS}. Send it in several imports.`);
    return { rowsRead: body.length, candidates: [] };
  }
  const candidates: Candidate[] = [];
  body.forEach((value, i) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.add(i, '', 'invalid-value', 'must be an object (a row of the PUT loader)');
      return;
    }
    candidates.push({ value: value as Record<string, unknown>, locate: (path) => ({ row: i, column: pathText(path) }) });
  });
  return { rowsRead: body.length, candidates };
}

function readCsv<Row>(kind: ImportKind<Row>, text: string, problems: ProblemList): { rowsRead: number; candidates: Candidate[] } {
  const none = { rowsRead: 0, candidates: [] };
  const delimiter = otherDelimiter(text);
  if (delimiter) {
    problems.add(
      1,
      '',
      'wrong-delimiter',
      `The file is separated by ${delimiter}, not commas. Export it as comma-separated values (CSV, RFC 4180) with a decimal point, e.g. "Save as CSV (Comma delimited)"; the first row names the columns: ${kind.columns.map((c) => c.name).join(',')}.`,
    );
    return none;
  }
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    problems.add(err.row, '', 'malformed-csv', `Row ${err.row}, field ${err.field} ${err.message}. Nothing after it was read.`);
    return none;
  }
  const [header, ...data] = records;
  if (!header) {
    problems.add(1, '', 'empty-file', `The file is empty; its first row names the columns: ${kind.columns.map((c) => c.name).join(',')}.`);
    return none;
  }
  const columns = readHeader(kind, header, problems);
  if (!columns) return { rowsRead: data.length, candidates: [] };
  if (data.length > MAX_IMPORT_ROWS) {
    problems.add(1, '', 'too-many-rows', `The file has ${data.length} rows after its header; an import takes at most ${MAX_IMPORT_ROWS}. Split it into several files.`);
    return { rowsRead: data.length, candidates: [] };
  }
  const width = header.fields.length;
  const wellFormed: CsvRecord[] = [];
  for (const r of data) {
    if (r.fields.length === width) wellFormed.push(r);
    else {
      problems.add(r.row, '', 'malformed-csv', `The row has ${r.fields.length} fields, the header ${width}; a value holding a comma is written in quotes ("Smith, Ann").`);
    }
  }
  return { rowsRead: data.length, candidates: kind.fromCsv(wellFormed, columns, problems) };
}

/** The header's columns by name (any case); unknown, repeated or missing columns are problems of row 1. */
function readHeader<Row>(kind: ImportKind<Row>, header: CsvRecord, problems: ProblemList): Columns | null {
  const byLower = new Map(kind.columns.map((c) => [c.name.toLowerCase(), c.name]));
  const index = new Map<string, number>();
  const expected = kind.columns.map((c) => c.name).join(', ');
  const before = problems.size;
  header.fields.forEach((raw, i) => {
    const given = raw.trim();
    const name = byLower.get(given.toLowerCase());
    if (!name) {
      problems.add(1, given, 'unknown-column', `The header's column ${i + 1} '${given.slice(0, 100)}' is not a column of ${kind.what}; the columns are ${expected}.`);
    } else if (index.has(name)) {
      problems.add(1, name, 'duplicate-column', `The header names column '${name}' twice (columns ${index.get(name)! + 1} and ${i + 1}).`);
    } else {
      index.set(name, i);
    }
  });
  for (const c of kind.columns) {
    if (c.required && !index.has(c.name)) {
      problems.add(1, c.name, 'missing-column', `The header has no column '${c.name}', which ${kind.what} need; the columns are ${expected} (the optional ones may be left out).`);
    }
  }
  return problems.size > before ? null : { index };
}

// ---- reading cells --------------------------------------------------------------------------------

/** A record's cells by column name, converted, with what cannot be converted reported at its row and column. */
export class Cells {
  constructor(
    private readonly record: CsvRecord,
    private readonly columns: Columns,
    private readonly problems: ProblemList,
  ) {}

  get row(): number {
    return this.record.row;
  }

  /** The cell as written, trimmed; undefined when the column is absent or the cell empty. */
  text(column: string): string | undefined {
    const i = this.columns.index.get(column);
    const v = i === undefined ? undefined : this.record.fields[i]!.trim();
    return v ? v : undefined;
  }

  /** A whole number (`12`, `-3`); anything else is a problem (`code`, default bad-number). */
  integer(column: string, code: ImportProblemCode = 'bad-number'): number | string | undefined {
    const v = this.text(column);
    if (v === undefined) return undefined;
    if (/^[+-]?\d{1,15}$/.test(v)) return Number(v);
    this.problems.add(this.row, column, code, `'${v.slice(0, 40)}' is not a whole number${code === 'bad-quantity' ? ' of units, 1 or more' : ''}`);
    return v;
  }

  /** A decimal number with a point (`12.50`). */
  decimal(column: string): number | string | undefined {
    const v = this.text(column);
    if (v === undefined) return undefined;
    return this.number(v, column) ?? v;
  }

  number(v: string, column: string): number | undefined {
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(v)) return Number(v);
    this.problems.add(this.row, column, 'bad-number', `'${v.slice(0, 40)}' is not a number; write it with a decimal point and no thousands separator (1234.50)`);
    return undefined;
  }

  /** true/false, also 1/0 and yes/no, in any case. */
  boolean(column: string): boolean | string | undefined {
    const v = this.text(column);
    if (v === undefined) return undefined;
    const lower = v.toLowerCase();
    if (lower === 'true' || lower === '1' || lower === 'yes') return true;
    if (lower === 'false' || lower === '0' || lower === 'no') return false;
    this.problems.add(this.row, column, 'invalid-value', `'${v.slice(0, 40)}' is not true or false (also 1/0, yes/no)`);
    return v;
  }

  /** A list in one cell, its values separated by `|`; empty: an empty list. */
  list(column: string): string[] {
    const v = this.text(column);
    return v === undefined ? [] : v.split('|').map((s) => s.trim()).filter(Boolean);
  }
}

/**
 * The records grouped by an id column whose rows follow one another (an order's lines, a picklist's
 * orders), each group with its first row's cells. A row without the id and an id seen in an earlier
 * group are problems (`missing`, `duplicate`), and their rows are left out.
 */
export function groupsById(
  records: CsvRecord[],
  columns: Columns,
  problems: ProblemList,
  idColumn: string,
  say: { missing: string; duplicate(id: string, first: number, last: number): string },
): { id: string; head: Cells; rows: CsvRecord[] }[] {
  const groups: { id: string; head: Cells; rows: CsvRecord[] }[] = [];
  const rowsOf = new Map<string, { first: number; last: number }>();
  let i = 0;
  while (i < records.length) {
    const head = new Cells(records[i]!, columns, problems);
    const id = head.text(idColumn);
    let end = i + 1;
    while (end < records.length && id !== undefined && new Cells(records[end]!, columns, problems).text(idColumn) === id) end += 1;
    const rows = records.slice(i, end);
    i = end;
    if (id === undefined) {
      problems.add(head.row, idColumn, 'missing-value', say.missing);
      continue;
    }
    const earlier = rowsOf.get(id);
    if (earlier) {
      problems.add(head.row, idColumn, 'duplicate-id', say.duplicate(id, earlier.first, earlier.last));
      continue;
    }
    rowsOf.set(id, { first: rows[0]!.row, last: rows.at(-1)!.row });
    groups.push({ id, head, rows });
  }
  return groups;
}
