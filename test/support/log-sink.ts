import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../shared/logging/logger';

/** A logger of the service's own kind (shared/logging/logger.ts) whose JSON lines land in `records`, parsed. */
export function recordingLogger<T = Record<string, unknown>>(level: string, role: string): { log: Logger; records: T[] } {
  const records: T[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) records.push(JSON.parse(line) as T);
      done();
    },
  });
  return { log: createLogger(level, role, sink), records };
}
