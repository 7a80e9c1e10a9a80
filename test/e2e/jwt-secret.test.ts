import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { JWT_SECRET_NAME } from '../../shared/auth/jwt-secret';
import { spawnApiProcess, stopApiProcess, type ApiProcess } from '../support/api-process';
import { newTenant, useTestApi, type Tenant } from '../support/test-api';

/*
 * No default lets anyone in: a service started without JWT_SECRET signs with a random key of its own,
 * kept in the database, never with a secret the repository (or its docs) contains. Every such secret is
 * tried as a forger would: an Admin token of a real employee signed with it gets 401. The key is the
 * same in every process of the deployment and after a restart, so a token stays good across both.
 */

const ROOT = path.resolve(__dirname, '../..');

/** The secrets written in the repository: the former development default and every JWT_SECRET value in a tracked file. */
function repositorySecrets(): string[] {
  const found = new Set<string>(['development-only-secret-change-me', 'test-secret-test-secret-test-secret', 'bench-only-secret-not-for-production']);
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => /\.(ts|js|mjs|md|ya?ml|json|sh|env|conf)$/.test(f));
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(path.join(ROOT, file), 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/JWT_SECRET\s*[:=]\s*['"`]([^'"`\s$]{16,})['"`]/g)) found.add(m[1]!);
  }
  return [...found];
}

const noJwtSecret = (): Record<string, string> => ({ JWT_SECRET: undefined as unknown as string, NODE_ENV: 'development' });

async function get(p: ApiProcess, url: string, token: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${p.port}${url}`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

async function signInAt(p: ApiProcess, tenant: Tenant): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${p.port}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: tenant.adminEmail, password: tenant.password }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('a service started without JWT_SECRET', () => {
  const api = useTestApi();
  let tenant: Tenant;
  const processes: ApiProcess[] = [];
  const start = async () => {
    const p = await spawnApiProcess(noJwtSecret());
    processes.push(p);
    return p;
  };

  beforeAll(async () => {
    tenant = await newTenant(api);
    // A deployment whose key is made now: two processes start together on a database without one.
    await api.runtime.orm.em.fork().execute('delete from service_secret where name = ?', [JWT_SECRET_NAME]);
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => stopApiProcess(p)));
  });

  it('refuses a token forged with any secret the repository contains, and shares its own key across processes and restarts', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const token = await signInAt(a, tenant);
    expect(await get(a, '/api/v1/walls', token)).toBe(200);
    // The other process (they raced to make the key) accepts it: one key for the deployment.
    expect(await get(b, '/api/v1/walls', token)).toBe(200);

    const claims = jwt.decode(token) as Record<string, unknown>;
    expect(claims).toMatchObject({ roles: ['Admin'], cid: tenant.clientId });
    const secrets = repositorySecrets();
    expect(secrets).toContain('development-only-secret-change-me');
    for (const secret of secrets) {
      const forged = jwt.sign({ sub: claims.sub, cid: claims.cid, roles: ['Admin'], email: claims.email, ver: claims.ver }, secret, {
        algorithm: 'HS256',
        expiresIn: 3600,
        issuer: 'sorting-wall',
      });
      expect({ secret, status: await get(a, '/api/v1/walls', forged) }).toEqual({ secret, status: 401 });
    }
    // The in-process test API's own token (JWT_SECRET of the test environment) is no key of this deployment either.
    expect(await get(a, '/api/v1/walls', tenant.adminToken)).toBe(401);
    // An unsigned token.
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url')}.`;
    expect(await get(a, '/api/v1/walls', unsigned)).toBe(401);

    // The key is kept: stopped and started again, the deployment still accepts the token it issued.
    await Promise.all([stopApiProcess(a), stopApiProcess(b)]);
    const c = await start();
    expect(await get(c, '/api/v1/walls', token)).toBe(200);
    // Nothing in the log holds the key.
    const [row] = await api.runtime.orm.em.fork().execute<{ value: string }[]>('select value from service_secret where name = ?', [JWT_SECRET_NAME]);
    expect(row!.value.length).toBeGreaterThanOrEqual(32);
    for (const p of [a, b, c]) expect(p.output).not.toContain(row!.value);
  }, 180_000);
});
