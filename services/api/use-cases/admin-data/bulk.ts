import { AppError, type FieldError } from '../../../../shared/errors/app-error';

/** The most rows one bulk load accepts (docs/api.md §3); bigger catalogs are sent in several calls. */
export const MAX_BULK_ROWS = 10_000;

/** At most this many row errors are listed in one answer, so a wholly wrong file stays readable. */
const MAX_LISTED_ERRORS = 1000;

/** How a bulk load runs: `queryTimeoutMs` bounds each of its statements instead of DATABASE_QUERY_TIMEOUT_MS (an import's). */
export interface BulkOptions {
  queryTimeoutMs?: number;
}

/** The answer of every bulk load: how many rows were written, and the rows as stored, in request order. */
export interface BulkResult<T> {
  upserted: number;
  created: number;
  updated: number;
  items: T[];
}

/** What is wrong with a row, for a program to branch on (the imports' reports list it, docs/api.md §3). */
export type RowProblemCode =
  | 'duplicate-id'
  | 'duplicate-value'
  | 'unknown-warehouse'
  | 'unknown-sku'
  | 'unknown-order'
  | 'order-sorting'
  | 'order-shipped'
  | 'sku-case-conflict'
  | 'invalid-value';

/** One refusal of a row: its index in the request, the field within it (`items[0].sku`), a code and words. */
export interface RowProblem {
  row: number;
  field: string;
  code: RowProblemCode;
  message: string;
}

/** The 400 of a refused batch; `problems` keeps every refusal with its code for the imports' reports. */
export class RowsRefused extends AppError {
  constructor(
    detail: string,
    listed: FieldError[],
    readonly problems: readonly RowProblem[],
  ) {
    super('validation-failed', detail, { errors: listed });
  }
}

/** Collects per-row refusals (`[3].warehouseId`) so one answer names every bad row. */
export class RowErrors {
  private readonly list: RowProblem[] = [];
  private readonly rows = new Set<number>();

  add(row: number, field: string, message: string, code: RowProblemCode = 'invalid-value'): void {
    this.rows.add(row);
    this.list.push({ row, field, code, message });
  }

  get size(): number {
    return this.list.length;
  }

  /** Throws one 400 validation-failed listing every bad row; nothing has been written yet. */
  throwIfAny(what: string, total: number): void {
    if (this.list.length === 0) return;
    const listed = this.list
      .slice(0, MAX_LISTED_ERRORS)
      .map((p) => ({ path: `[${p.row}]${p.field ? (p.field.startsWith('[') ? p.field : `.${p.field}`) : ''}`, message: p.message }));
    const more = this.list.length > listed.length ? ` The first ${listed.length} of ${this.list.length} problems are listed.` : '';
    throw new RowsRefused(
      `${this.rows.size} of ${total} ${what} cannot be loaded; nothing was changed. Fix the rows listed in errors[] and send the whole batch again.${more}`,
      listed,
      this.list,
    );
  }
}

/** Marks every repetition of a key after its first occurrence as a row error. */
export function flagDuplicates<T>(rows: readonly T[], key: (row: T) => string | number, errors: RowErrors, field: string, label: string): void {
  const first = new Map<string | number, number>();
  rows.forEach((row, i) => {
    const k = key(row);
    const seen = first.get(k);
    if (seen === undefined) first.set(k, i);
    else errors.add(i, field, `duplicate ${label} '${k}': row [${seen}] of this request has it already`, 'duplicate-id');
  });
}

export function json(value: unknown): string {
  return JSON.stringify(value);
}

/** Upper-cased codes, the form product_code holds and scans are matched in. */
export function codeOf(value: string): string {
  return value.trim().toUpperCase();
}
