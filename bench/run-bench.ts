import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs a bench's main and ends the process: 0 when it finishes, 1 with the stack when it throws (a
 * client or a timer left open never keeps a finished bench alive).
 */
export function runBench(name: string, main: () => Promise<unknown>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`\n${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}

/** Writes a bench's figures to `file` in the results folder, with when and on how many CPUs they were taken. */
export function writeLatest(resultsDir: string, file: string, figures: Record<string, unknown>): void {
  writeFileSync(path.join(resultsDir, file), `${JSON.stringify({ generatedAt: new Date().toISOString(), cpus: os.cpus().length, ...figures }, null, 2)}\n`);
}
