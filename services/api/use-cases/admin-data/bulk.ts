import { AppError, type FieldError } from '../../../../shared/errors/app-error';

/** The most rows one bulk load accepts (docs/api.md §3); bigger catalogs are sent in several calls. */
export const MAX_BULK_ROWS = 10_000;

/** At most this many row errors are listed in one answer, so a wholly wrong file stays readable. */
const MAX_LISTED_ERRORS = 1000;

/** The answer of every bulk load: how many rows were written, and the rows as stored, in request order. */
export interface BulkResult<T> {
  upserted: number;
  created: number;
  updated: number;
  items: T[];
}

/** Collects per-row refusals (`[3].warehouseId`) so one answer names every bad row. */
export class RowErrors {
  private readonly list: FieldError[] = [];
  private readonly rows = new Set<number>();

  add(row: number, field: string, message: string): void {
    this.rows.add(row);
    this.list.push({ path: `[${row}]${field ? (field.startsWith('[') ? field : `.${field}`) : ''}`, message });
  }

  get size(): number {
    return this.list.length;
  }

  /** Throws one 400 validation-failed listing every bad row; nothing has been written yet. */
  throwIfAny(what: string, total: number): void {
    if (this.list.length === 0) return;
    const listed = this.list.slice(0, MAX_LISTED_ERRORS);
    const more = this.list.length > listed.length ? ` The first ${listed.length} of ${this.list.length} problems are listed.` : '';
    throw new AppError(
      'validation-failed',
      `${this.rows.size} of ${total} ${what} cannot be loaded; nothing was changed. Fix the rows listed in errors[] and send the whole batch again.${more}`,
      { errors: listed },
    );
  }
}

/** Marks every repetition of a key after its first occurrence as a row error. */
export function flagDuplicates<T>(rows: T[], key: (row: T) => string | number, errors: RowErrors, field: string, label: string): void {
  const first = new Map<string | number, number>();
  rows.forEach((row, i) => {
    const k = key(row);
    const seen = first.get(k);
    if (seen === undefined) first.set(k, i);
    else errors.add(i, field, `duplicate ${label} '${k}': row [${seen}] of this request has it already`);
  });
}

export function json(value: unknown): string {
  return JSON.stringify(value);
}

/** Upper-cased codes, the form product_code holds and scans are matched in. */
export function codeOf(value: string): string {
  return value.trim().toUpperCase();
}
