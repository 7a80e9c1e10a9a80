import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { loadConfig } from '../../shared/config/config';
import { WORKER_KINDS } from '../../workers/registry';
import { EVERY_PROCESS_NODE_FLAGS } from '../../services/supervisor/roles';

/*
 * docker-compose.yml's safe defaults (docs/operations.md, "Containers"): without JWT_SECRET compose
 * refuses to start, and the demo client (public passwords) is seeded only when SEED_DEMO=true is asked
 * for. There is no Docker engine in the test environment, so the file is parsed as YAML and its
 * variables are substituted the way Compose does (the subset the file uses), failing on anything else.
 */
const ROOT = path.join(__dirname, '../..');
const file = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');

type Env = Record<string, string | undefined>;

/** Compose's interpolation: $$, $VAR, ${VAR}, ${VAR:-d}, ${VAR-d}, ${VAR:?e}, ${VAR?e}, ${VAR:+a}, ${VAR+a}. */
function interpolate(text: string, env: Env): string {
  return text.replace(/\$(\$|[A-Za-z_][A-Za-z0-9_]*|\{([^}]*)\})/g, (m, whole: string, braced: string | undefined) => {
    if (whole === '$') return '$';
    if (braced === undefined) return env[whole] ?? '';
    const p = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])(.*))?$/s.exec(braced);
    if (!p) throw new Error(`compose cannot read ${m}`);
    const [, name, colon, op, arg = ''] = p;
    const value = env[name!];
    const missing = value === undefined || (colon === ':' && value === '');
    if (!op) return value ?? '';
    if (op === '-') return missing ? interpolate(arg, env) : value!;
    if (op === '+') return missing ? '' : interpolate(arg, env);
    if (missing) throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return value!;
  });
}

function resolve(env: Env): Record<string, { environment?: Record<string, unknown>; image?: string; build?: unknown }> {
  const walk = (v: unknown): unknown =>
    typeof v === 'string' ? interpolate(v, env) : Array.isArray(v) ? v.map(walk) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)])) : v;
  const doc = walk(yaml.load(file)) as { services: Record<string, { environment?: Record<string, unknown>; image?: string; build?: unknown }> };
  return doc.services;
}

/** The services of the service's own image (migrate, api, a worker per kind). */
const appServices = (services: ReturnType<typeof resolve>) => Object.entries(services).filter(([, s]) => s.image === 'sorting-wall-service:local');

describe('docker-compose.yml: safe defaults', () => {
  const secret = 'a'.repeat(64);
  const mqttPassword = 'b'.repeat(32);

  it('refuses to start without JWT_SECRET (unset or empty), saying how to set it', () => {
    for (const env of [{}, { JWT_SECRET: '' }]) {
      expect(() => resolve(env)).toThrow(/required variable JWT_SECRET is missing a value: set JWT_SECRET/);
    }
    expect(file).not.toMatch(/JWT_SECRET:\s*\$\{JWT_SECRET:-/);
  });

  it('gives every container of the service the secret it was started with, in production', () => {
    const services = appServices(resolve({ JWT_SECRET: secret, MQTT_PASSWORD: mqttPassword }));
    expect(services.map(([name]) => name)).toEqual(expect.arrayContaining(['migrate', 'api', 'worker-sorting', 'worker-outbox']));
    for (const [name, s] of services) {
      expect({ name, NODE_ENV: s.environment?.NODE_ENV, JWT_SECRET: s.environment?.JWT_SECRET }).toEqual({ name, NODE_ENV: 'production', JWT_SECRET: secret });
      // The service accepts it as it stands (a production secret of at least 16 characters).
      const config = loadConfig(s.environment as Record<string, string>);
      expect(config).toMatchObject({ NODE_ENV: 'production', JWT_SECRET: secret, jwtSecretGenerated: false });
    }
  });

  it('runs every worker kind in a container of its own, and the broker the lights worker talks to', () => {
    const services = resolve({ JWT_SECRET: secret, MQTT_PASSWORD: mqttPassword });
    for (const kind of Object.keys(WORKER_KINDS)) {
      expect({ kind, command: (services[`worker-${kind}`] as { command?: string[] } | undefined)?.command }).toEqual({ kind, command: ['node', ...EVERY_PROCESS_NODE_FLAGS, 'dist/workers/main.js', kind] });
    }
    // The API too runs with the flags npm start gives every process.
    expect((services.api as { command?: string[] } | undefined)?.command).toEqual(['node', ...EVERY_PROCESS_NODE_FLAGS, 'dist/services/api/main.js']);
    expect(services.mosquitto?.image).toMatch(/^eclipse-mosquitto:/);
    expect(new URL(String(services['worker-lights']?.environment?.MQTT_URL)).host).toBe('mosquitto:1883');
  });

  it('seeds the demo client (public passwords) only when SEED_DEMO=true is asked for', () => {
    for (const [name, s] of appServices(resolve({ JWT_SECRET: secret, MQTT_PASSWORD: mqttPassword }))) {
      expect({ name, SEED_DEMO: s.environment?.SEED_DEMO }).toEqual({ name, SEED_DEMO: 'false' });
      expect(loadConfig(s.environment as Record<string, string>).SEED_DEMO).toBe(false);
    }
    const [, migrate] = appServices(resolve({ JWT_SECRET: secret, MQTT_PASSWORD: mqttPassword, SEED_DEMO: 'true' })).find(([name]) => name === 'migrate')!;
    expect(loadConfig(migrate.environment as Record<string, string>).SEED_DEMO).toBe(true);
  });

  it('the README says how to start it: a secret of your own, the demo only when asked', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(/MQTT_PASSWORD=\$\(openssl rand -hex 16\) JWT_SECRET=\$\(openssl rand -hex 32\) docker compose up/);
    expect(readme).toMatch(/SEED_DEMO=true[^\n]*docker compose up/);
    expect(readme).toMatch(/refuses to start without `JWT_SECRET`/);
    expect(readme).toMatch(/and `MQTT_PASSWORD`/);
  });

  it('runs the lights broker with passwords and an ACL, and gives the service its user from MQTT_PASSWORD', () => {
    expect(() => resolve({ JWT_SECRET: secret })).toThrow(/required variable MQTT_PASSWORD is missing a value: set MQTT_PASSWORD/);
    const services = resolve({ JWT_SECRET: secret, MQTT_PASSWORD: mqttPassword }) as Record<string, { entrypoint?: string[]; command?: unknown; volumes?: string[]; environment?: Record<string, string> }>;
    const broker = services.mosquitto!;
    expect(broker.command).toBeUndefined();
    expect(broker.entrypoint).toEqual(['/bin/sh', '/mosquitto/config/start.sh']);
    expect(broker.volumes).toContain('./mosquitto:/mosquitto/config:ro');
    expect(broker.environment?.MQTT_PASSWORD).toBe(mqttPassword);
    const conf = readFileSync(path.join(ROOT, 'mosquitto/mosquitto.conf'), 'utf8');
    expect(conf).toMatch(/^allow_anonymous false$/m);
    expect(conf).toMatch(/^password_file \/mosquitto\/data\/passwd$/m);
    expect(conf).toMatch(/^acl_file \/mosquitto\/config\/acl$/m);
    expect(readFileSync(path.join(ROOT, 'mosquitto/start.sh'), 'utf8')).toMatch(/mosquitto_passwd -b "\$passwd" sorting-service "\$MQTT_PASSWORD"/);
    expect(readFileSync(path.join(ROOT, 'mosquitto/acl'), 'utf8')).toMatch(/^user sorting-service\ntopic readwrite sorting\/#$/m);
    for (const [name, s] of appServices(services)) {
      const mqttUrl = new URL(String(s.environment?.MQTT_URL));
      expect({ name, user: mqttUrl.username, password: mqttUrl.password, host: mqttUrl.host }).toEqual({ name, user: 'sorting-service', password: mqttPassword, host: 'mosquitto:1883' });
      expect(loadConfig(s.environment as Record<string, string>).MQTT_URL).toBe(mqttUrl.toString());
    }
  });
});
