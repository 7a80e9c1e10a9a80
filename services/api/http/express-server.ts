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
  return createServer({ IncomingMessage: ownClass(app, 'request', IncomingMessage), ServerResponse: ownClass(app, 'response', ServerResponse) }, app);
}

/**
 * A subclass of `base` whose prototype becomes the app's `request` (or `response`): it has Express's
 * methods and the app's own properties, and Node makes every request (answer) with it.
 */
function ownClass<C extends typeof IncomingMessage | typeof ServerResponse>(app: Express, key: 'request' | 'response', base: C): C {
  const appPrototype: object = app[key];
  class Own extends base {}
  // Express's methods (which inherit base's), then what the app set on its own prototype (`app`).
  Object.setPrototypeOf(Own.prototype, Object.getPrototypeOf(appPrototype));
  const { constructor: _, ...own } = Object.getOwnPropertyDescriptors(appPrototype);
  Object.defineProperties(Own.prototype, own);
  (app as unknown as Record<typeof key, object>)[key] = Own.prototype;
  return Own as unknown as C;
}
