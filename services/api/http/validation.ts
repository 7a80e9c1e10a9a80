import { z } from 'zod';
import { AppError, type FieldError } from '../../../shared/errors/app-error';

export type InputLocation = 'path' | 'query' | 'body' | 'header';

export function zodIssuesToFieldErrors(issues: z.core.$ZodIssue[], location: InputLocation): (FieldError & { in: InputLocation })[] {
  return issues.map((i) => ({
    // `[2].items[0].sku`: the same path format as the row errors of the bulk loads.
    path: i.path.length
      ? i.path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '')
      : location,
    message: i.message,
    in: location,
  }));
}

/** Parses one part of a request; a failure is a 400 `validation-failed` listing every problem. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, location: InputLocation): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = zodIssuesToFieldErrors(result.error.issues, location);
  const first = errors[0];
  const where = location === 'body' ? 'request body' : `${location} parameter`;
  throw new AppError(
    'validation-failed',
    errors.length === 1
      ? `Invalid ${where} '${first.path}': ${first.message}.`
      : `The request has ${errors.length} invalid fields; see errors[].`,
    { errors },
  );
}

// Reusable field schemas. Query strings arrive as text, so numbers and booleans are coerced.
export const idParam = z.coerce.number().int().min(1).max(2147483647);
export const queryBool = z
  .enum(['true', 'false', '1', '0', 'True', 'False'])
  .transform((v) => v === 'true' || v === '1' || v === 'True');
