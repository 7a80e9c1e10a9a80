import type { Request } from 'express';
import { AppError } from '../../../shared/errors/app-error';

/** X-Pin: the company's PIN, for operations it protects where enforcement is server-side. */
export function pinHeader(req: Request): string | undefined {
  return req.header('x-pin') ?? undefined;
}

/** Idempotency-Key: 1 to 200 characters when sent (400 validation-failed otherwise), else null. */
export function idempotencyKeyHeader(req: Request): string | null {
  const key = req.header('idempotency-key');
  if (key !== undefined && (key.length < 1 || key.length > 200)) {
    throw new AppError('validation-failed', 'The Idempotency-Key header must be 1 to 200 characters.', {
      errors: [{ path: 'Idempotency-Key', message: 'must be 1 to 200 characters' }],
    });
  }
  return key ?? null;
}

/** What any operation that waits for a sorting command may answer besides its own errors. */
export const COMMAND_ERRORS = ['service-unavailable', 'command-timeout'];
