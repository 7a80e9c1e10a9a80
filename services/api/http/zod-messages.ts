import type { z } from 'zod';

/*
 * The one error map of the API: every validation message says what is expected, in words a sorter or
 * an integrator can act on ("must be a whole number from 1 to 100000"), instead of zod's defaults
 * ("Invalid input: expected number, received NaN"). A schema's own message still wins.
 * Installed once with z.config (validation.ts); messages start with a verb so they read after the
 * field's name: "Query parameter 'units' must be a whole number from 1 to 100000."
 */

type Issue = z.core.$ZodRawIssue;
interface CheckDef {
  check?: string;
  value?: unknown;
  format?: string;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}

const MAX_INT32 = 2147483647;
const fmt = (n: unknown) => (typeof n === 'number' || typeof n === 'bigint' ? Number(n).toLocaleString('en-US', { useGrouping: false }) : String(n));

function checksOf(inst: unknown): CheckDef[] {
  const checks = (inst as { _zod?: { def?: { checks?: { _zod: { def: CheckDef } }[] } } })?._zod?.def?.checks ?? [];
  return checks.map((c) => c._zod.def);
}

/** "a whole number from 1 to 6", "a number of at least 0", "a whole number". */
export function describeNumber(checks: CheckDef[]): string {
  const whole = checks.some((c) => c.check === 'number_format' && /int/.test(c.format ?? ''));
  const min = checks.find((c) => c.check === 'greater_than');
  const max = checks.find((c) => c.check === 'less_than');
  const kind = whole ? 'a whole number' : 'a number';
  const lo = min ? (min.inclusive ? fmt(min.value) : `more than ${fmt(min.value)}`) : undefined;
  const hi = max ? (max.inclusive ? fmt(max.value) : `less than ${fmt(max.value)}`) : undefined;
  if (min?.inclusive && max?.inclusive) return `${kind} from ${lo} to ${hi}`;
  if (lo && hi) return `${kind}, ${min!.inclusive ? `at least ${lo}` : lo} and ${max!.inclusive ? `at most ${hi}` : hi}`;
  if (lo) return `${kind} of ${min!.inclusive ? `at least ${lo}` : lo}`;
  if (hi) return `${kind} of ${max!.inclusive ? `at most ${hi}` : hi}`;
  return kind;
}

function describeText(checks: CheckDef[]): string {
  const min = checks.find((c) => c.check === 'min_length')?.minimum;
  const max = checks.find((c) => c.check === 'max_length')?.maximum;
  if (min !== undefined && max !== undefined) return min === max ? `text of ${min} characters` : `text of ${min} to ${max} characters`;
  if (max !== undefined) return `text of at most ${characters(max)}`;
  if (min !== undefined) return `text of at least ${characters(min)}`;
  return 'text';
}

const characters = (n: number) => `${n} character${n === 1 ? '' : 's'}`;
const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;

function expectedInWords(expected: string, inst: unknown): string {
  switch (expected) {
    case 'number':
    case 'int':
      return describeNumber(checksOf(inst));
    case 'string':
      return describeText(checksOf(inst));
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list (JSON array)';
    case 'object':
      return 'an object (JSON object)';
    case 'null':
      return 'null';
    case 'date':
      return 'a date';
    default:
      return expected;
  }
}

const FORMATS: Record<string, string> = {
  datetime: 'an ISO 8601 date-time with a time zone, such as 2026-01-31T09:30:00Z',
  date: 'a date as YYYY-MM-DD, such as 2026-01-31',
  email: 'an e-mail address',
  url: 'a URL',
  uuid: 'a UUID',
};

/** The message for one zod issue, or undefined to keep zod's own. */
export function zodMessage(issue: Issue): string | undefined {
  const inst = (issue as { inst?: unknown }).inst;
  switch (issue.code) {
    case 'invalid_type': {
      const what = expectedInWords(issue.expected, inst);
      if (issue.input === undefined) return `is required: ${what}`;
      return `must be ${what}`;
    }
    case 'too_small': {
      const n = issue.minimum as number;
      if (issue.origin === 'string') return n === 1 ? 'must not be empty' : `must be at least ${characters(n)} long`;
      if (issue.origin === 'array' || issue.origin === 'set') return n === 1 ? 'must not be empty: give at least 1 item' : `must have at least ${items(n)}`;
      return issue.inclusive ? `must be at least ${fmt(n)}` : `must be more than ${fmt(n)}`;
    }
    case 'too_big': {
      const n = issue.maximum as number;
      if (issue.origin === 'string') return `must be at most ${characters(n)} long`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${items(n)}`;
      if (n === Number.MAX_SAFE_INTEGER || n === MAX_INT32) return `must be at most ${fmt(n)} (too large)`;
      return issue.inclusive ? `must be at most ${fmt(n)}` : `must be less than ${fmt(n)}`;
    }
    case 'invalid_format': {
      if (issue.format === 'regex') return `is not in the expected format`;
      if (issue.format === 'starts_with') return `must start with '${String((issue as { prefix?: string }).prefix)}'`;
      return `must be ${FORMATS[issue.format] ?? `a valid ${issue.format}`}`;
    }
    case 'invalid_value': {
      const values = issue.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      return values.length === 1 ? `must be ${values[0]}` : `must be one of: ${values.join(', ')}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${fmt(issue.divisor)}`;
    case 'unrecognized_keys':
      return issue.keys.length === 1
        ? `has a field this operation does not know: '${issue.keys[0]}'`
        : `has fields this operation does not know: ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    case 'invalid_union':
      return 'does not match any accepted form';
    case 'invalid_key':
      return 'has a key that is not accepted';
    case 'invalid_element':
      return 'has an element that is not accepted';
    default:
      return undefined;
  }
}
