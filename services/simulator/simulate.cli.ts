import { parseArgs } from 'node:util';
import path from 'node:path';
import { loadServiceUrl } from '../../shared/config/config';
import { mqttCredentialsFile, mqttUrlAs, readMqttCredentials } from '../supervisor/embedded/mqtt-credentials';
import { formatSummary, runSimulation, type SimOptions } from './simulator';

/*
 * npm run simulate -- --walls 3 --sorters 6 --minutes 2 [--url http://localhost:3000]
 *                     [--user admin@demo.local --password demo-admin-1] [--pace 1] [--seconds N] [--seed N]
 * Sorting against a running service, for demos (watch it on /hub) and load.
 */

export const USAGE = `usage: npm run simulate -- [--walls 3] [--sorters 6] [--minutes 2 | --seconds N] [--url URL]
                         [--user admin@demo.local] [--password demo-admin-1] [--pace 1] [--seed 1]
                         [--mqtt mqtt://127.0.0.1:1883 | --no-lights]
                         [--printer-host 127.0.0.1] [--printer-port 0] [--auto-print | --no-printer]
Drives realistic sorting against a running service (watch it on <url>/hub); prints a summary.
  --walls     walls to sort on (1..100), created on first use       --sorters  sorters per wall (1..6)
  --minutes   how long (default 2); or --seconds N                   --pace     multiplies every human pause (0.1 = ten times faster)
  --url       the service (default: SERVICE_URL, else http://localhost:$PORT, PORT default 3000)
  --user, --password  an Admin of the client to sort for (default: the demo Admin)
  --seed      varies the choices                                     --help     this text
  --mqtt      the light gateway's broker (default MQTT_URL, else mqtt://127.0.0.1:1883; without a user, the
              embedded broker's controllers user from .data/mqtt/credentials.json when there): a virtual light
              controller per wall follows its slots' lights and presses confirm buttons; --no-lights: none
  --printer-host, --printer-port  a simulated label printer: this process listens on the port (default 0: a
              free one) and registers it as the walls' printer at that host (default 127.0.0.1: the address the
              service reaches this machine at); the shipper prints each complete slot's plate there, then releases it
  --auto-print  the walls print each plate by themselves when an order completes; the shipper only releases
  --no-printer  no printer: the shipper only releases`;

/** Whether the command line asks for the usage text (then nothing else is read). */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** The options of a run; the service's address defaults to SERVICE_URL, else localhost on PORT (`env`). */
export function parseSimArgs(argv: string[], env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): Omit<SimOptions, 'progress'> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      walls: { type: 'string', default: '3' },
      sorters: { type: 'string', default: '6' },
      minutes: { type: 'string' },
      seconds: { type: 'string' },
      url: { type: 'string' },
      user: { type: 'string', default: 'admin@demo.local' },
      password: { type: 'string', default: 'demo-admin-1' },
      pace: { type: 'string', default: '1' },
      seed: { type: 'string', default: '1' },
      mqtt: { type: 'string' },
      'no-lights': { type: 'boolean', default: false },
      'printer-host': { type: 'string', default: '127.0.0.1' },
      'printer-port': { type: 'string', default: '0' },
      'auto-print': { type: 'boolean', default: false },
      'no-printer': { type: 'boolean', default: false },
    },
  });
  const num = (name: string, v: string | undefined, min: number, max: number, int = true): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max || (int && !Number.isInteger(n))) throw new Error(`--${name} must be ${int ? 'an integer' : 'a number'} from ${min} to ${max}, not '${v}'`);
    return n;
  };
  const seconds = values.seconds !== undefined ? num('seconds', values.seconds, 1, 86_400) : num('minutes', values.minutes ?? '2', 0.05, 1440, false) * 60;
  return {
    url: values.url ?? loadServiceUrl(env),
    user: values.user!,
    password: values.password!,
    walls: num('walls', values.walls, 1, 100),
    sortersPerWall: num('sorters', values.sorters, 1, 6),
    durationMs: Math.round(seconds * 1000),
    pace: num('pace', values.pace, 0, 100, false),
    seed: num('seed', values.seed, 0, 2 ** 31),
    mqttUrl: values['no-lights'] ? null : controllerUrl(values.mqtt ?? (env.MQTT_URL && env.MQTT_URL !== 'off' ? env.MQTT_URL : 'mqtt://127.0.0.1:1883'), env),
    mqttPrefix: env.MQTT_TOPIC_PREFIX ?? 'sorting',
    printer: values['no-printer']
      ? null
      : { host: values['printer-host']!, port: num('printer-port', values['printer-port'], 0, 65535), autoPrint: values['auto-print']! },
  };
}

/**
 * A broker URL without a user: the embedded broker's controllers user when `npm start` made one here
 * (its password in the data folder); any other URL as given.
 */
export function controllerUrl(url: string, env: NodeJS.ProcessEnv): string {
  let user: string;
  try {
    user = new URL(url).username;
  } catch {
    return url;
  }
  if (user) return url;
  const creds = readMqttCredentials(mqttCredentialsFile(path.resolve(env.EMBEDDED_DATA_DIR || '.data')));
  return creds ? mqttUrlAs(url, 'controllers', creds) : url;
}

async function main(): Promise<void> {
  if (wantsHelp(process.argv.slice(2))) {
    console.log(USAGE);
    return;
  }
  let opts: Omit<SimOptions, 'progress'>;
  try {
    opts = parseSimArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const tty = process.stderr.isTTY;
  let lastLine = 0;
  const progress = (line: string) => {
    // A terminal gets one line redrawn in place; a log gets a line every 10 s.
    if (tty) process.stderr.write(`\r${line.slice(0, (process.stderr.columns ?? 120) - 1).padEnd((process.stderr.columns ?? 120) - 1)}`);
    else if (Date.now() - lastLine >= 10_000) {
      lastLine = Date.now();
      process.stderr.write(`${line}\n`);
    }
  };
  console.error(`Simulating ${opts.walls} wall(s) × ${opts.sortersPerWall} sorter(s) for ${opts.durationMs / 1000} s against ${opts.url} (watch it on ${opts.url}/hub)`);
  const summary = await runSimulation({ ...opts, progress });
  if (tty) process.stderr.write('\n');
  console.log(formatSummary(summary));
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(`simulate: ${err.message}`);
    process.exit(1);
  });
}
