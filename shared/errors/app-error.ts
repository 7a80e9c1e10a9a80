import { ERROR_CODES, ERROR_TYPE_BASE, type ErrorCode } from './error-codes';

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/**
 * An error as a value with a stable code. Thrown by use-cases, carried back from
 * workers as plain JSON, and turned into problem+json in exactly one place (the API error handler).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly extensions?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail: string,
    opts: { errors?: FieldError[]; extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    // An expected outcome (a 4xx, a 503 or 504) needs no stack trace, and capturing one is a large part
    // of what a refused scan or a shed command costs; only a 500 keeps its stack for the log.
    const keepStack = ERROR_CODES[code].status === 500;
    const limit = Error.stackTraceLimit;
    if (!keepStack) Error.stackTraceLimit = 0;
    try {
      super(detail);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.errors = opts.errors;
    this.extensions = opts.extensions;
    this.headers = opts.headers;
  }

  toProblem(instance?: string): ProblemDetails {
    return {
      type: ERROR_TYPE_BASE + this.code,
      title: ERROR_CODES[this.code].title,
      status: this.status,
      code: this.code,
      detail: this.message,
      ...(instance ? { instance } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.extensions ?? {}),
    };
  }

  /** Rebuilds an AppError from a problem carried across a process boundary (a worker's reply). */
  static fromProblem(p: Pick<ProblemDetails, 'code' | 'detail'> & Partial<ProblemDetails>): AppError {
    const code = (p.code in ERROR_CODES ? p.code : 'internal-error') as ErrorCode;
    // Extension fields (a refusal's itemId, endedAt, ...) travel with it; the standard ones are rebuilt.
    const { type: _t, title: _ti, status: _s, code: _c, detail: _d, instance: _i, errors, ...extensions } = p;
    return new AppError(code, p.detail, { errors, extensions: Object.keys(extensions).length ? extensions : undefined });
  }
}

export const notFound = (what: string) => new AppError('not-found', `${what} was not found.`);
