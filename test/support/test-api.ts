import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { loadConfig } from '../../shared/config/config';
import { createRuntime, type Runtime } from '../../shared/runtime/runtime';
import { createClient, type CreateClientResult } from '../../shared/tenancy/create-client.use-case';
import type { ApiDeps } from '../../services/api/api-deps';
import { createApp } from '../../services/api/app';
import { buildApiDeps } from '../../services/api/start-api';
import type { WorkerKind } from '../../shared/runtime/worker-kinds';
import { startWorkers } from '../../workers/registry';
import { addEmployee, type EmployeeInput } from './fixtures';

export { waitFor } from './wait-for';

export interface TestApi {
  app: Express;
  deps: ApiDeps;
  runtime: Runtime;
  close(): Promise<void>;
}

/** The real API on the jest worker's own database and Redis prefix (test/support/worker-env.ts). */
export async function startTestApi(opts: { workers?: WorkerKind[]; env?: Record<string, string> } = {}): Promise<TestApi> {
  // `env`: settings of this API only (e.g. TRUST_PROXY), over the jest worker's environment.
  const runtime = await createRuntime('test', opts.env ? { config: loadConfig({ ...process.env, ...opts.env }) } : {});
  if (opts.workers?.length) await startWorkers(runtime, opts.workers);
  const deps = buildApiDeps(runtime);
  const app = createApp(deps);
  return { app, deps, runtime, close: () => runtime.close() };
}

/**
 * The beforeAll/afterAll pair most test files share: the API starts before the file's tests and closes
 * after them. The handle stands for that API once the beforeAll has run (use it in tests and hooks, not
 * while the file is collected). A beforeAll declared after this call runs after the start; an afterAll
 * declared after it runs after the close (jest runs afterAll hooks in the order declared), so a file
 * that must stop something while the API still runs starts it with startTestApi instead.
 */
export function useTestApi(opts: Parameters<typeof startTestApi>[0] = {}): TestApi {
  let api: TestApi | undefined;
  beforeAll(async () => {
    api = await startTestApi(opts);
  });
  afterAll(async () => {
    await api?.close();
  });
  return new Proxy({} as TestApi, {
    get(_target, key) {
      if (!api) throw new Error(`the test API is not started yet: use it in a test or hook (asked for ${String(key)})`);
      return Reflect.get(api, key);
    },
  });
}

export interface Tenant extends CreateClientResult {
  password: string;
  adminToken: string;
  /** A bearer header value for the Admin. */
  auth: string;
}

export function uniqueSuffix(): string {
  return randomUUID().slice(0, 8);
}

export async function signIn(app: Express, email: string, password: string): Promise<string> {
  const res = await request(app).post('/token').send({ username: email, password });
  if (res.status !== 200) throw new Error(`sign-in of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

/** An employee of the tenant (written straight into PostgreSQL), signed in: its id and bearer header value. */
export async function signedInEmployee(api: TestApi, tenant: { clientId: number }, input: EmployeeInput): Promise<{ id: number; auth: string }> {
  const e = await addEmployee(api.runtime.orm.em.fork(), tenant.clientId, input);
  return { id: e.id, auth: `Bearer ${await signIn(api.app, e.email, e.password)}` };
}

/** A fresh client with its Admin signed in: tests isolate by tenant inside a worker's database. */
export async function newTenant(api: TestApi, name = 'Acme'): Promise<Tenant> {
  const suffix = uniqueSuffix();
  const password = `pw-${suffix}-secret`;
  const created = await createClient(api.runtime.orm.em.fork(), {
    name: `${name} ${suffix}`,
    team: `team-${suffix}`,
    adminEmail: `admin-${suffix}@example.com`,
    adminPassword: password,
    hashRounds: 4,
  });
  const adminToken = await signIn(api.app, created.adminEmail, password);
  return { ...created, password, adminToken, auth: `Bearer ${adminToken}` };
}
