import { Socket } from 'node:net';
import type { AppConfig } from '../../shared/config/config';
import type { SqlRunner } from '../../shared/db/named-sql';
import type { Logger } from '../../shared/logging/logger';
import { printFailed, printSent, printWriting, type ClaimedPrintJob } from './print.queries';

/** How long a printer has to accept the connection. */
export const PRINT_CONNECT_TIMEOUT_MS = 5_000;
/** How long writing one label may take once connected. */
export const PRINT_WRITE_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 300;

/** What a job says when a write began and its outcome was never recorded: it is not written again. */
export const UNKNOWN_OUTCOME =
  'The worker stopped while it was sending this label, so whether the printer took it is not known; it is not sent again (it may have printed). Print it again if no label came out.';
/** Prefixed to the last error of a job its printer did not take in time. */
export const TOO_LATE = 'The printer did not take the label in time; it was not printed. Print it again once the printer is back.';

/** The wait after failed attempt `attempt` (1-based): doubling from the base, at most the maximum. */
export function printRetryDelayMs(attempt: number, config: Pick<AppConfig, 'PRINT_RETRY_BASE_MS' | 'PRINT_RETRY_MAX_MS'>): number {
  return Math.min(config.PRINT_RETRY_MAX_MS, Math.round(config.PRINT_RETRY_BASE_MS * 2 ** Math.min(30, attempt - 1)));
}

/** Words an operator reads for a socket error. */
function describe(err: unknown, job: Pick<ClaimedPrintJob, 'host' | 'port'>): string {
  const e = err as NodeJS.ErrnoException;
  const where = `${job.host}:${job.port}`;
  const text =
    e.code === 'ECONNREFUSED'
      ? `The printer at ${where} refused the connection (is it on, and is its raw port ${job.port} open?)`
      : e.code === 'ETIMEDOUT' || e.message === 'connect timeout'
        ? `The printer at ${where} did not answer within ${PRINT_CONNECT_TIMEOUT_MS / 1000} s (is it on the network?)`
        : e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN'
          ? `The printer's host name '${job.host}' does not resolve`
          : e.code === 'EHOSTUNREACH' || e.code === 'ENETUNREACH'
            ? `The printer at ${where} cannot be reached from the service (network unreachable)`
            : `Sending to the printer at ${where} failed: ${e.message || String(err)}`;
  return text.slice(0, MAX_ERROR_LENGTH);
}

/** Connects to the printer, or rejects within the connect timeout. */
function connect(job: ClaimedPrintJob): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' }));
    }, PRINT_CONNECT_TIMEOUT_MS);
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
    socket.connect(job.port, job.host, () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

/** Writes every byte and closes our side; resolves once the last byte is handed to the network. */
function writeAll(socket: Socket, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the printer did not take the label within ${PRINT_WRITE_TIMEOUT_MS / 1000} s`)), PRINT_WRITE_TIMEOUT_MS);
    function fail(err: Error) {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    }
    socket.once('error', fail);
    socket.end(body, () => {
      clearTimeout(timer);
      socket.removeListener('error', fail);
      // Our side is done; the printer closes its own. Errors after the last byte change nothing.
      socket.on('error', () => undefined);
      socket.destroy();
      resolve();
    });
  });
}

export type PrintOutcome = 'sent' | 'retry' | 'abandoned';

/**
 * One attempt of a claimed job: connect; note in the job that this attempt writes (so no later attempt
 * ever writes it again once it may have printed); write every byte; record Sent. A printer that does
 * not answer, or a connection that breaks before the last byte, makes the job due again after a
 * growing wait. Once every byte is written the outcome is Sent, and recording it is tried until the
 * database takes it (`keepRecording`), never by writing again.
 */
export async function sendPrintJob(
  db: SqlRunner,
  job: ClaimedPrintJob,
  config: Pick<AppConfig, 'PRINT_RETRY_BASE_MS' | 'PRINT_RETRY_MAX_MS'>,
  log: Logger,
  keepRecording: (record: () => Promise<unknown>) => Promise<void>,
): Promise<PrintOutcome> {
  const retry = async (err: unknown): Promise<PrintOutcome> => {
    const error = describe(err, job);
    const retryAt = new Date(Date.now() + printRetryDelayMs(job.attempt, config));
    log.warn({ printJobId: job.id, printerId: job.printer_id, attempt: job.attempt, retryAt, error }, 'print job not sent; it is tried again');
    await printFailed(db, { id: job.id, attempt: job.attempt, error, retryAt });
    return 'retry';
  };
  let socket: Socket;
  try {
    socket = await connect(job);
  } catch (err) {
    return retry(err);
  }
  let mine: boolean;
  try {
    mine = (await printWriting(db, { id: job.id, attempt: job.attempt })).length === 1;
  } catch (err) {
    socket.destroy();
    throw err;
  }
  if (!mine) {
    socket.destroy();
    return 'abandoned';
  }
  try {
    await writeAll(socket, job.body);
  } catch (err) {
    return retry(err);
  }
  await keepRecording(() => printSent(db, { id: job.id, attempt: job.attempt }));
  log.info({ printJobId: job.id, printerId: job.printer_id, attempt: job.attempt, bytes: job.body.length }, 'print job sent');
  return 'sent';
}
