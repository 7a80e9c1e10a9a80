import { readFileSync } from 'node:fs';
import { ROLES, roleArgs } from '../services/supervisor/roles';

/** The direct children of a process (Linux /proc). */
export function childrenOf(pid: number | undefined): number[] {
  if (!pid) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * The role of a service process, from its command line: `api`, `supervisor`, a role of the supervisor's
 * table for a worker process that runs that role's kinds (`pipeline`, `sorting`), else the kinds it
 * runs (`outbox`, or `outbox,audit` started by hand).
 */
export function roleOf(pid: number): string | undefined {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv.some((a) => /services\/api\/main\.(ts|js)$/.test(a))) return 'api';
    const i = argv.findIndex((a) => /workers\/main\.(ts|js)$/.test(a));
    if (i >= 0) {
      const kinds = argv.slice(i + 1).filter(Boolean).join(',');
      return ROLES.find((r) => r.kinds && roleArgs(r).join(',') === kinds)?.role ?? kinds;
    }
    if (argv.some((a) => /services\/main\.(ts|js)$/.test(a))) return 'supervisor';
  } catch {
    // gone
  }
  return undefined;
}

/** The service processes by role: the given processes and, for a supervisor, its children. */
export function processesByRole(pids: (number | undefined)[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  const add = (pid: number) => {
    const role = roleOf(pid);
    if (role) (out[role] ??= []).push(pid);
  };
  for (const pid of pids) {
    if (!pid) continue;
    add(pid);
    if (roleOf(pid) === 'supervisor') for (const c of childrenOf(pid)) add(c);
  }
  return out;
}
