import type { Request } from 'express';
import { z } from 'zod';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import { AppError, type FieldError } from '../../../shared/errors/app-error';
import { zodMessage } from './zod-messages';

// Every validation message of the API in words (zod-messages.ts); a schema's own message still wins.
z.config({ customError: zodMessage });

export type InputLocation = 'path' | 'query' | 'body' | 'header';

type Key = PropertyKey;

/** `[2].items[0].sku`: the same path format as the row errors of the bulk loads. */
function fieldPath(path: readonly Key[], location: InputLocation): string {
  return path.length
    ? path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '')
    : location;
}

/** zod's own bound of `.int()` (outside the safe integer range), met together with the field's bound. */
const safeIntegerBound = (i: z.core.$ZodIssue) => (i.code === 'too_big' || i.code === 'too_small') && i.origin === 'int';

/**
 * One error per field, the first zod found, except that `.int()`'s safe-integer bound gives way to the
 * field's own (99999999999999999999 for an id "must be at most 2147483647", once).
 */
export function zodIssuesToFieldErrors(issues: z.core.$ZodIssue[], location: InputLocation): (FieldError & { in: InputLocation })[] {
  const byField = new Map<string, z.core.$ZodIssue>();
  for (const i of issues) {
    const path = fieldPath(i.path, location);
    const seen = byField.get(path);
    if (!seen || (safeIntegerBound(seen) && !safeIntegerBound(i))) byField.set(path, i);
  }
  return [...byField].map(([path, i]) => ({ path, message: i.message, in: location }));
}

const WHERE: Record<InputLocation, string> = { path: 'Path parameter', query: 'Query parameter', body: 'Field', header: 'Header' };
const WHOLE: Record<InputLocation, string> = { path: 'The request path', query: 'The query string', body: 'The request body', header: 'The request headers' };

function validationFailed(errors: (FieldError & { in: InputLocation })[]): AppError {
  const first = errors[0]!;
  const detail =
    errors.length === 1
      ? first.path === first.in
        ? `${WHOLE[first.in]} ${first.message}.`
        : `${WHERE[first.in]} '${first.path}' ${first.message}.`
      : `The request has ${errors.length} invalid fields; see errors[].`;
  return new AppError('validation-failed', detail, { errors });
}

/** Parses one part of a request; a failure is a 400 `validation-failed` listing every problem. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, location: InputLocation): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailed(zodIssuesToFieldErrors(result.error.issues, location));
}

// ---- text PostgreSQL cannot store ---------------------------------------------------------------

// NUL cannot be stored in a PostgreSQL text or jsonb value; a lone UTF-16 half of a surrogate pair
// is no Unicode character (jsonb refuses its escape, UTF-8 cannot encode it). Either would reach the
// database as a 500, so they are refused as input, everywhere, before any route sees the request.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be accepted as text, or undefined when it can. */
export function unstorableText(s: string): string | undefined {
  const m = UNSTORABLE.exec(s);
  if (!m) return undefined;
  return m[0] === '\u0000'
    ? 'must not contain a NUL character (\\u0000)'
    : `must not contain an unpaired UTF-16 surrogate (\\u${m[0].charCodeAt(0).toString(16).toUpperCase()}): send valid Unicode text`;
}

const MAX_ERRORS = 20;

/** Every string (and object key) of a parsed JSON value or query object that cannot be stored. */
function unstorableIn(value: unknown, location: InputLocation): (FieldError & { in: InputLocation })[] {
  const errors: (FieldError & { in: InputLocation })[] = [];
  // Iterative: a deeply nested body must not overflow the stack.
  const stack: [unknown, Key[]][] = [[value, []]];
  while (stack.length && errors.length < MAX_ERRORS) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const why = unstorableText(v);
      if (why) errors.push({ path: fieldPath(path, location), message: why, in: location });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v).reverse()) {
        const why = unstorableText(k);
        if (why) errors.push({ path: fieldPath(path, location), message: `has a key with ${why.replace(/^must not contain /, '')}`, in: location });
        else stack.push([child, [...path, k]]);
      }
    }
  }
  return errors;
}

/**
 * What a URL needs for its path or query to hold text that cannot be stored: a percent escape (a
 * segment is checked only when it has one, and without one a query's values are the URL's own
 * characters, `+` read as a space), or a NUL or UTF-16 surrogate as it came. Without any of them
 * there is nothing to check.
 */
const MAY_BE_UNSTORABLE = /[%\u0000\uD800-\uDFFF]/;

/**
 * Refuses, for every route (and every route added later), input no route can handle: a path
 * segment that is not valid percent-encoded UTF-8, and NUL or lone surrogates in the path or the
 * query. Runs before routing (app.ts); the JSON body, read by each route with its own limit, is
 * checked by rejectUnstorableBody once read. The 400 to answer, or undefined.
 */
export function unstorableInput(req: Request): AppError | undefined {
  if (req.body === undefined && !MAY_BE_UNSTORABLE.test(req.url)) return undefined;
  const errors: (FieldError & { in: InputLocation })[] = [];
  for (const segment of req.path.split('/')) {
    if (!segment.includes('%')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      errors.push({ path: 'path', message: `has a segment '${segment.slice(0, 60)}' that is not valid percent-encoded UTF-8`, in: 'path' });
      continue;
    }
    const why = unstorableText(decoded);
    if (why) errors.push({ path: 'path', message: `has a segment that ${why}`, in: 'path' });
  }
  if (!errors.length) errors.push(...unstorableIn(req.query, 'query'));
  if (!errors.length && req.body !== undefined) errors.push(...unstorableIn(req.body, 'body'));
  return errors.length ? validationFailed(errors) : undefined;
}

/** NUL or lone surrogates anywhere in a JSON body just read: 400, as unstorableInput for the path and query. */
export function rejectUnstorableBody(body: unknown): void {
  if (body === undefined) return;
  const errors = unstorableIn(body, 'body');
  if (errors.length) throw validationFailed(errors);
}

// ---- reusable field schemas ---------------------------------------------------------------------

// Query strings arrive as text, so numbers and booleans are coerced.
export const idParam = z.coerce.number().int().min(1).max(2147483647);
export const queryBool = z
  .enum(['true', 'false', '1', '0', 'True', 'False'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'True');

// Years 1..9999 in UTC: what ISO 8601 writes with four digits, and well inside PostgreSQL's range,
// so a date a client sends is stored and answered as it came (a year 0 or 10000 would be a 500).
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** Whether an ISO date or date-time falls between 0001-01-01 and 9999-12-31 in UTC. */
export function inStorableRange(iso: string): boolean {
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : iso);
  return Number.isFinite(t) && t >= EARLIEST && t <= LATEST;
}

const RANGE_MESSAGE = 'must be between 0001-01-01 and 9999-12-31 (UTC)';

/** An ISO 8601 date-time with a time zone, or a date (read as midnight UTC), years 1..9999 in UTC. */
export const isoDateOrDateTime = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: 'must be an ISO 8601 date-time with a time zone (2026-01-31T09:30:00Z) or a date (2026-01-31)',
  })
  .refine(inStorableRange, RANGE_MESSAGE);

/** An ISO 8601 date-time with a time zone, years 1..9999 in UTC. */
export const isoDateTime = z.iso.datetime({ offset: true }).refine(inStorableRange, RANGE_MESSAGE);

/** A calendar month as YYYY-MM, 0001-01..9999-12. */
export const monthParam = z.string().regex(/^(?!0000)\d{4}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM, from 0001-01 to 9999-12');

/** A slot named in a path: its crc (8 hex digits, any case), or its sorter (A-) or shipper (B-) barcode; parsed to the crc. */
export const slotCrcParam = z
  .string()
  .regex(/^(?:[ABab]-)?[0-9A-Fa-f]{8}$/, { error: 'must be a slot crc: 8 hex digits, optionally as A-XXXXXXXX or B-XXXXXXXX' })
  .transform((s) => parseSlotBarcode(s)!.crc);
