import { randomUUID } from 'node:crypto';
import { SqlPool, WALL_ACTOR_APPLICATION_NAME } from '../../shared/db/sql-pool';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { buildInProcessFloor, useInProcessWalls } from '../support/in-process-wall';

/* Which walls a sorting process forgets when they have been idle (workers/sorting/actor/wall-actor.ts). */

describe('idle walls', () => {
  const walls = useInProcessWalls();

  it('forgets a wall idle for 15 minutes, but not one with a sorter connected', async () => {
    const pool = new SqlPool(walls.config.DATABASE_URL, { max: 2, acquireTimeoutMs: 5000, applicationName: WALL_ACTOR_APPLICATION_NAME, prepared: true }, walls.log);
    try {
      const actors = new WallActors({ db: pool, log: walls.log, sessionIdleTimeoutMs: 60_000 }, 8);
      const handlers = sortingHandlers(actors);
      const job = () => ({ commandId: randomUUID(), partition: 0, jobId: 1 });
      const connected = await buildInProcessFloor(walls);
      const left = await buildInProcessFloor(walls);
      const start = async (floor: typeof connected) => {
        const sorter = await floor.sorter(1);
        const started = await handlers['session.start']({ ...sorter.on, picklistId: null }, job());
        if (!started.ok) throw new Error(started.problem.detail);
        return { sorter, token: started.value.token };
      };
      await start(connected);
      const gone = await start(left);
      expect(await handlers['session.stop']({ ...gone.sorter.on, token: gone.token }, job())).toMatchObject({ ok: true });
      expect(actors.held().actors).toBe(2);

      actors.forgetIdle(Date.now() + 14 * 60_000);
      expect(actors.held().actors).toBe(2);
      actors.forgetIdle(Date.now() + 16 * 60_000);
      expect(actors.held()).toEqual({ actors: 1, commands: 0 });
    } finally {
      await pool.close();
    }
  });
});
