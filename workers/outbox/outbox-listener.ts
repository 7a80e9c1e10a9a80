import { Client } from 'pg';
import type { Logger } from '../../shared/logging/logger';

/** The channel the outbox_event trigger notifies on commit (Migration20261123030000_event_pipeline). */
export const OUTBOX_CHANNEL = 'outbox_event';

export interface OutboxListener {
  /** Resolves on the next notification or after `ms`, whichever comes first; at once if one came since the last call. */
  wait(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A dedicated PostgreSQL connection in LISTEN outbox_event. A lost connection is re-opened after a
 * second; meanwhile the relay's back-up poll keeps events moving.
 */
export function listenForOutbox(databaseUrl: string, log: Logger): OutboxListener {
  let pending = false;
  let wake: (() => void) | null = null;
  let client: Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const notify = () => {
    pending = true;
    wake?.();
  };
  const connect = async () => {
    if (closed) return;
    const c = new Client({ connectionString: databaseUrl });
    c.on('notification', notify);
    c.on('error', (err) => {
      log.warn({ err: err.message }, 'outbox listener lost its connection; polling until it is back');
      reconnect(c);
    });
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      await c.query(`listen ${OUTBOX_CHANNEL}`);
      client = c;
      // Events committed while the listener was down: look once.
      notify();
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'outbox listener could not connect; retrying in 1 s');
      reconnect(c);
    }
  };
  const reconnect = (c: Client) => {
    if (closed || retry) return;
    if (client === c) client = null;
    c.removeAllListeners('end');
    c.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, 1000);
  };
  void connect();

  return {
    wait(ms) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = null;
          pending = false;
          resolve();
        }
        wake = done;
      });
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      wake?.();
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
      }
    },
  };
}
