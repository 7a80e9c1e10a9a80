import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import type { Express } from 'express';

/**
 * An HTTP server for an Express app whose requests and answers are made with the app's own prototypes.
 *
 * Express gives every request and answer the app's prototype as it takes them
 * (`Object.setPrototypeOf(req, app.request)`, the same for `res`). On Node 20 an IncomingMessage or a
 * ServerResponse whose prototype was changed after it was made is kept through V8's young collections
 * until the next full one, with everything it points to: the API promoted about 3 MB a second at
 * 100 pairs a second, and each young collection, every half second, copied the requests of the last
 * one (10–25 ms a pause on two busy cores; docs/benchmarks.md, "Requests kept by their prototype").
 * Made with the app's prototypes from the start, Express's change is no change (V8 returns at once when
 * the prototype is the one the object has) and a finished request dies young, as it does on a bare
 * `node:http` server.
 *
 * Only the app's own prototypes are given: a sub-app mounted with `app.use` (the queue dashboard's)
 * still swaps them for its requests, which are rare.
 */
export function createExpressServer(app: Express): Server {
  return createServer({ IncomingMessage: madeWith(IncomingMessage, app.request), ServerResponse: madeWith(ServerResponse, app.response) }, app);
}

/**
 * A constructor that makes what `base` makes, with `prototype` as its prototype from the start. Node's
 * IncomingMessage and ServerResponse are plain constructor functions, run here on the object `new`
 * made. (`Reflect.construct(base, args, Made)` would give every object a map of its own, since `Made`'s
 * own `new` and the derived construction disagree on its initial map, and keep them all as the swap did.)
 */
function madeWith<C extends typeof IncomingMessage | typeof ServerResponse>(base: C, prototype: object): C {
  const construct = base as unknown as (this: object, ...args: unknown[]) => void;
  function Made(this: object, ...args: unknown[]): void {
    construct.call(this, ...args);
  }
  Made.prototype = prototype;
  return Made as unknown as C;
}
