import { Client } from 'pg';
import { foldedWarning, type Logger } from '../../shared/logging/logger';
import type { Runtime } from '../../shared/runtime/runtime';
import { SqlClient } from '../../shared/db/sql-pool';
import { backendPid } from './notifications.queries';

/** Sent by the outbox_event trigger when a transaction that wrote events commits: wakes the relay. */
export const OUTBOX_CHANNEL = 'outbox_event';
/**
 * Sent by the relay when it has stamped events: wakes the consumers that read at once (the light
 * gateway) in other processes; the relay's own process hands them its steps in memory.
 */
export const RELAYED_CHANNEL = 'outbox_relayed';
/** The application_name of each process's listening connection (the relay looks for those of other processes). */
export const LISTENER_APPLICATION_NAME = 'sorting:listen';

export interface Waiter {
  /**
   * Resolves on the next notification or after `ms`, whichever comes first; at once if one came since
   * the last call. True when woken (a notification, `wake`, a reconnect), false when the time ran out.
   */
  wait(ms: number): Promise<boolean>;
  /** Wakes this waiter as a notification would (a local producer that knows there is work). */
  wake(): void;
  /**
   * Forgets a notification that came since the last `wait`: for a loop about to look anyway, whose look
   * covers every commit notified before it starts (the relay's step), so it does not look again for it.
   */
  clear(): void;
}

export interface Notifications {
  /** A waiter on `channel`, LISTENed from now on. Each waiter has its own pending flag. */
  waiter(channel: string): Waiter;
  /** The backend pid of the listening connection while it is connected (null otherwise). */
  backendPid(): number | null;
  /** Wakes this process's waiters on `channel` as a notification on it would (one this process sends itself). */
  wake(channel: string): void;
  close(): Promise<void>;
}

/**
 * A waiter that no notification wakes, only `wake` and its time: for a loop that looks on its own
 * schedule. PostgreSQL wakes every listening connection of a database for every NOTIFY, whatever its
 * channel, so a process listens only when it must react at once.
 */
export function localWaiter(): Waiter & { closed: boolean } {
  let pending = false;
  let wake: (() => void) | null = null;
  return {
    closed: false,
    wait(ms) {
      if (pending || this.closed) {
        pending = false;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), ms);
        function done(woken: boolean) {
          clearTimeout(timer);
          wake = null;
          pending = false;
          resolve(woken);
        }
        wake = () => done(true);
      });
    },
    wake() {
      pending = true;
      wake?.();
    },
    clear() {
      pending = false;
    },
  };
}

/**
 * One dedicated PostgreSQL connection per process in LISTEN on the channels its waiters need. A lost
 * connection is re-opened after a second (every waiter is woken then: a notification may have been
 * missed); meanwhile each loop's back-up poll keeps things moving. Behind PgBouncer in transaction mode
 * LISTEN does not work; the polls carry the pipeline alone then (docs/scaling.md).
 */
export function listenForNotifications(databaseUrl: string, log: Logger): Notifications {
  const waiters = new Map<string, Set<ReturnType<typeof localWaiter>>>();
  let client: Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let connecting: Promise<void> | null = null;
  let pid: number | null = null;
  // While PostgreSQL is away it fails every second: one line per interval.
  const cannotConnect = foldedWarning(log, 'notification listener could not connect; retrying every second');

  const wakeAll = (channel?: string) => {
    for (const [c, set] of waiters) if (channel === undefined || c === channel) for (const w of set) w.wake();
  };
  const connect = async () => {
    if (closed) return;
    const c = new Client({ connectionString: databaseUrl, application_name: LISTENER_APPLICATION_NAME });
    c.on('notification', (n) => wakeAll(n.channel));
    c.on('error', (err) => {
      log.warn({ err: err.message }, 'notification listener lost its connection; polling until it is back');
      reconnect(c);
    });
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      for (const channel of waiters.keys()) await c.query(`listen ${channel}`);
      pid = (await backendPid(new SqlClient(c, false), {}))[0]!.pid;
      client = c;
      // Whatever was notified while the listener was down: look once.
      wakeAll();
    } catch (err) {
      cannotConnect(err as Error);
      reconnect(c);
    }
  };
  const reconnect = (c: Client) => {
    if (closed || retry) return;
    if (client === c) {
      client = null;
      pid = null;
    }
    c.removeAllListeners('end');
    c.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = null;
      connecting = connect();
    }, 1000);
  };

  return {
    waiter(channel) {
      if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const w = localWaiter();
      let set = waiters.get(channel);
      if (!set) {
        set = new Set();
        waiters.set(channel, set);
        if (client) client.query(`listen ${channel}`).catch(() => undefined);
      }
      set.add(w);
      connecting ??= connect();
      return w;
    },
    backendPid: () => pid,
    wake: (channel) => wakeAll(channel),
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      for (const set of waiters.values()) {
        for (const w of set) {
          w.closed = true;
          w.wake();
        }
      }
      await connecting?.catch(() => undefined);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
      }
    },
  };
}

const perRuntime = new WeakMap<object, Notifications>();

/** The process's one listener (several worker kinds in one process share it), closed with the runtime. */
export function notificationsOf(runtime: Pick<Runtime, 'config' | 'log' | 'onClose'>): Notifications {
  let n = perRuntime.get(runtime);
  if (!n) {
    const created = listenForNotifications(runtime.config.DATABASE_URL, runtime.log);
    perRuntime.set(runtime, created);
    runtime.onClose('notification listener', () => created.close());
    n = created;
  }
  return n;
}
