import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Follows a child's stdout and stderr: each chunk goes to `onChunk` (to keep the output's tail for a
 * failure's message), and each whole line that is a JSON record (a log line) to `onRecord`; other
 * lines, and a record cut short, are passed over.
 */
export function followLogRecords<T>(child: ChildProcess, onRecord: (record: T) => void, onChunk: (chunk: Buffer) => void = () => undefined): void {
  let partial = '';
  const onData = (chunk: Buffer) => {
    onChunk(chunk);
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (!line.startsWith('{')) continue;
      try {
        onRecord(JSON.parse(line) as T);
      } catch {
        // not a log record
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
}

/** The direct children of a process (Linux /proc). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether a process of this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
