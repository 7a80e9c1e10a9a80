import { poolShares } from '../../shared/runtime/runtime';

/*
 * How a process splits its DATABASE_POOL_MAX connections between its pools (docs/scaling.md,
 * "Connections"): the pools a process opens together stay within it (2 at the least).
 */
describe('pool shares', () => {
  const opened = (s: ReturnType<typeof poolShares>, commands: boolean) => s.orm + (commands ? s.sql : 0) + s.worker;

  it.each([1, 2, 3, 10, 40])('DATABASE_POOL_MAX %i: no process opens more (at least 2 where it has two pools)', (max) => {
    const sorting = poolShares(max, true, true);
    const pipeline = poolShares(max, false, true);
    const api = poolShares(max, false, false);
    expect(opened(sorting, true)).toBe(Math.max(2, max));
    expect(opened(pipeline, false)).toBe(Math.max(2, max));
    expect(opened(api, false)).toBe(max);
  });

  it('gives the worker kinds of a process that runs no commands a pool of their own, and none elsewhere', () => {
    expect(poolShares(10, false, true)).toEqual({ orm: 1, sql: 10, worker: 9 });
    // The sorting worker: its other kinds share the ORM's one connection.
    expect(poolShares(10, true, true)).toEqual({ orm: 1, sql: 9, worker: 0 });
    // The API, the CLI, a test's process: the ORM pool alone.
    expect(poolShares(10, false, false)).toEqual({ orm: 10, sql: 10, worker: 0 });
  });

  it('gives the wall actors COMMAND_CONNECTIONS, within what the process may open', () => {
    expect(poolShares(10, true, true, 2)).toEqual({ orm: 1, sql: 2, worker: 0 });
    expect(poolShares(10, true, true, 20)).toEqual({ orm: 1, sql: 9, worker: 0 });
    expect(poolShares(2, true, true, 2)).toEqual({ orm: 1, sql: 1, worker: 0 });
    // A test's process that runs the sorting worker beside the rest: the same bound for its commands.
    expect(poolShares(10, false, false, 2)).toEqual({ orm: 10, sql: 2, worker: 0 });
    expect(poolShares(10, false, true, 2)).toEqual({ orm: 1, sql: 2, worker: 9 });
  });
});
