import { query } from '../../shared/db/named-sql';

/* The notification listener's statement (notifications.ts). */

/** The backend pid of the connection it runs on: the listener's own (the relay leaves it out of the listeners it counts). */
export const backendPid = query<Record<string, never>, { pid: number }>('backend-pid', 'select pg_backend_pid() as pid');
