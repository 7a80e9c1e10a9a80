import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthClaims } from '../../shared/auth/jwt';
import { commandActor } from '../../services/api/commands/command-actor';
import { createInProcessCommandClient, type InProcessCommandClient } from '../../shared/commands/in-process-command-client';
import { loadConfig, type AppConfig } from '../../shared/config/config';
import type { Role } from '../../shared/db/entities';
import { initOrm, type Orm } from '../../shared/db/orm';
import { SqlPool, WALL_ACTOR_APPLICATION_NAME } from '../../shared/db/sql-pool';
import { createLogger, type Logger } from '../../shared/logging/logger';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { createClient } from '../../shared/tenancy/create-client.use-case';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { addEmployee, addOrders, addProducts, addSlots, addWall, addWarehouse, type OrderInput, type ProductInput } from './fixtures';

const uniqueSuffix = () => randomUUID().slice(0, 8);

/*
 * The workflow in one process (docs/architecture.md "Tests"): the wall actors a sorting worker
 * builds (sortingHandlers over WallActors, with actorDeps), on the jest worker's own database, behind
 * the in-process command transport. A command is decided by its use-case with the machines and written
 * with its bookkeeping (outbox events, applied_command, the fence) exactly as in production; only the
 * queue is left out, so no Redis, no API and no second process are started. The end-to-end tests go
 * through HTTP and the queues; this tier tests a rule with its SQL.
 */

export interface InProcessWalls {
  config: AppConfig;
  log: Logger;
  orm: Orm;
  /**
   * Commands decided here: `send` answers the outcome a worker gives (`{ ok, value }` or `{ ok: false,
   * problem }`); `execute` answers the value or throws the refusal, as the API's CommandClient does, so
   * the API's use-cases run on it too.
   */
  readonly commands: InProcessCommandClient;
  /** A fresh entity manager for fixtures and reads. */
  em(): EntityManager;
  /** Rows of a statement on the test's database (`?` placeholders). */
  rows<R extends object>(sql: string, params?: unknown[]): Promise<R[]>;
  /**
   * Another process takes the walls over: the actors' memory is gone and the next command of each wall
   * loads it from PostgreSQL (a failover, or a job handed out again after its holder died).
   */
  takeOver(): void;
  close(): Promise<void>;
}

export async function startInProcessWalls(): Promise<InProcessWalls> {
  // The jest worker's settings (test/support/worker-env.ts): its own database. Nothing here may use
  // Redis, so it points where none answers: a use would fail the test instead of passing unnoticed.
  const config = loadConfig({ ...process.env, REDIS_URL: 'redis://127.0.0.1:1' });
  const log = createLogger(config.LOG_LEVEL, 'test:in-process');
  const orm = await initOrm(config.DATABASE_URL, 2, { acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS, applicationName: 'sorting:test:in-process', log });
  const sql = new SqlPool(
    config.DATABASE_URL,
    { max: 2, acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS, applicationName: WALL_ACTOR_APPLICATION_NAME, prepared: config.DATABASE_PREPARED_STATEMENTS },
    log,
  );
  // As the sorting worker builds them (workers/sorting/sorting.worker.ts), minus the partition host.
  const build = () =>
    createInProcessCommandClient(sortingHandlers(new WallActors(actorDeps({ sqlPool: () => sql, log, config }), config.QUEUE_PARTITIONS)), {
      partitions: config.QUEUE_PARTITIONS,
      log,
      recordFailure: failedJobRecorder(() => orm.em.fork()),
    });
  let commands = build();
  return {
    config,
    log,
    orm,
    get commands() {
      return commands;
    },
    em: () => orm.em.fork(),
    rows: <R extends object>(statement: string, params: unknown[] = []) => orm.em.fork().execute<R[]>(statement, params),
    takeOver() {
      commands = build();
    },
    async close() {
      await sql.close();
      await orm.close();
    },
  };
}

/** The part of `beforeAll`/`afterAll` most files share: the handle is usable in tests and hooks. */
export function useInProcessWalls(): InProcessWalls {
  let walls: InProcessWalls | undefined;
  beforeAll(async () => {
    walls = await startInProcessWalls();
  });
  afterAll(async () => {
    await walls?.close();
  });
  return new Proxy({} as InProcessWalls, {
    get(_target, key) {
      if (!walls) throw new Error(`the in-process walls are not started yet: use them in a test or hook (asked for ${String(key)})`);
      return Reflect.get(walls, key);
    },
  });
}

/** An employee of the floor's client: their claims (for the API's use-cases) and the part every command payload shares. */
export interface FloorPerson {
  userId: number;
  auth: AuthClaims;
  /** `{ clientId, wallId, userId, roles }` on the floor's wall. */
  on: ReturnType<typeof commandActor>;
}

export interface InProcessFloor {
  clientId: number;
  warehouseId: number;
  wallId: number;
  slots: { id: number; crc: string; position: number }[];
  /** Sorters and a Manager, created on first use. */
  sorter(n: number): Promise<FloorPerson>;
  manager(): Promise<FloorPerson>;
}

/**
 * A client of its own with a warehouse, products, orders and a wall of Empty slots, written with the
 * fixtures (test/support/fixtures.ts) as the HTTP floor (sorting-floor.ts) is, but with no sign-in.
 */
export async function buildInProcessFloor(
  walls: InProcessWalls,
  opts: { slots?: number; maxSorters?: number; products?: ProductInput[]; orders?: Omit<OrderInput, 'warehouseId'>[] } = {},
): Promise<InProcessFloor> {
  const suffix = uniqueSuffix();
  const { clientId } = await createClient(walls.em(), {
    name: `Floor ${suffix}`,
    team: `team-${suffix}`,
    adminEmail: `admin-${suffix}@example.com`,
    adminPassword: `pw-${suffix}-secret`,
    hashRounds: 4,
  });
  const em = walls.em();
  const wh = await addWarehouse(em, clientId, { id: 1, name: 'Jackson St DC' });
  await addProducts(em, clientId, opts.products ?? [{ sku: 'SKU-A', upc: '012345678905' }, { sku: 'SKU-B' }]);
  if (opts.orders?.length) await addOrders(em, clientId, opts.orders.map((o) => ({ ...o, warehouseId: wh.id })));
  const wall = await addWall(em, clientId, { name: `Wall ${suffix}`, warehouseId: wh.id, maxSorters: opts.maxSorters ?? 6 });
  const slots = await addSlots(em, clientId, wall.id, opts.slots ?? 4);
  const people = new Map<string, FloorPerson>();
  const person = async (key: string, roles: Role[]) => {
    const known = people.get(key);
    if (known) return known;
    const e = await addEmployee(walls.em(), clientId, { roles, email: `${key}-${uniqueSuffix()}@example.com`, firstName: key, lastName: 'Tester' });
    const auth: AuthClaims = { employeeId: e.id, clientId, roles, email: e.email, credentialsVersion: 0 };
    const made = { userId: e.id, auth, on: commandActor(auth, wall.id) };
    people.set(key, made);
    return made;
  };
  return {
    clientId,
    warehouseId: wh.id,
    wallId: wall.id,
    slots: slots.map((s) => ({ id: s.id, crc: s.crc, position: s.position })),
    sorter: (n) => person(`sorter${n}`, ['Sorter']),
    manager: () => person('manager', ['Manager']),
  };
}
