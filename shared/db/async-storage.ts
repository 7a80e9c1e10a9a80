import { AsyncLocalStorage, executionAsyncResource } from 'node:async_hooks';

/*
 * Node 20's AsyncLocalStorage keeps its stores with async hooks: the first `run()` of any storage turns
 * on the process's promise hooks, and they stay on until every storage is disabled. MikroORM runs its
 * storages for a flush (UnitOfWork), a transaction (TransactionContext) and a findAndCount
 * (RawQueryFragment), so a process that ever flushed (a sign-in, an admin's edit, the migrations at
 * start) paid a hook call for every promise made, resolved and awaited from then on: the hot routes'
 * plain SQL, the queue's Redis commands and the HTTP layer's own awaits included.
 *
 * releaseIdleStorages() makes a storage's `run()` disable the storage again once no run of it is under
 * way (its callback returned, or the promise it returned settled): outside a run a storage's store is
 * undefined anyway, so nothing reads a different value; inside one, the hooks are on as before. A
 * storage entered with `enterWith()` stays enabled (its store has no end). When no storage is enabled
 * the promise hooks are off. Under AsyncContextFrame (Node 24's default) storages use no hooks and
 * nothing is changed.
 */

const INSTALLED = Symbol.for('sorting.releaseIdleStorages');

type Storage = AsyncLocalStorage<unknown>;
type Run = (this: Storage, store: unknown, callback: (...args: unknown[]) => unknown, ...args: unknown[]) => unknown;

interface Patched {
  [INSTALLED]?: true;
  run: Run;
  enterWith(this: Storage, store: unknown): void;
  _enable?: () => void;
}

/** Whether this Node keeps AsyncLocalStorage's stores with async hooks (Node 20 and 22 without AsyncContextFrame). */
function storesUseHooks(): boolean {
  const proto = AsyncLocalStorage.prototype as unknown as Patched;
  return typeof proto._enable === 'function';
}

export function releaseIdleStorages(): void {
  const proto = AsyncLocalStorage.prototype as unknown as Patched;
  if (proto[INSTALLED] || !storesUseHooks()) return;
  proto[INSTALLED] = true;
  const runs = new WeakMap<Storage, number>();
  const entered = new WeakSet<Storage>();
  const run = proto.run;
  const enterWith = proto.enterWith;
  const ended = (storage: Storage) => {
    const left = (runs.get(storage) ?? 1) - 1;
    runs.set(storage, left);
    if (left === 0 && !entered.has(storage)) storage.disable();
  };
  proto.run = function (this: Storage, store, callback, ...args) {
    runs.set(this, (runs.get(this) ?? 0) + 1);
    let result: unknown;
    try {
      result = run.call(this, store, callback, ...args);
    } catch (err) {
      ended(this);
      throw err;
    }
    if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
      const end = () => ended(this);
      (result as PromiseLike<unknown>).then(end, end);
    } else {
      ended(this);
    }
    return result;
  };
  proto.enterWith = function (this: Storage, store) {
    entered.add(this);
    enterWith.call(this, store);
  };
}

/**
 * Whether the process runs promise hooks now: with them on, a promise's reaction runs in the promise's
 * own async resource; with them off, in the resource of whatever callback drains the microtasks.
 */
export function promiseHooksOn(): Promise<boolean> {
  return Promise.resolve().then(() => {
    const resource = executionAsyncResource() as { then?: unknown };
    // A thenable rather than `instanceof Promise`: the promise may come from another realm (a vm context).
    return typeof resource.then === 'function';
  });
}
