/**
 * Plain SQL behind names (docs/architecture.md, "ORM or plain SQL"): each statement of a hot path is
 * one typed function, written with named parameters (`:wallId`) that are numbered (`$1`) once, when the
 * module loads; a call binds them from an object, each value once however often the SQL uses it.
 * `::type` casts are left alone.
 */

/**
 * What runs a statement: a pool (each statement its own transaction), a transaction's connection
 * (SqlPool.transaction, OrmSql.transaction, emTransactionSql), or a bare pg client (SqlClient: bench).
 */
export interface SqlRunner {
  run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]>;
}

/**
 * A runner that also opens transactions: OrmSql (shared/db/orm-sql.ts, the ORM's pool or one of its
 * transactions: every process) or SqlPool (shared/db/sql-pool.ts, a pg pool of its own: the sorting
 * worker's commands, bounded and isolated; docs/architecture.md "ORM or plain SQL"). `fn` runs in one
 * transaction on one connection: committed when it returns, rolled back when it throws.
 */
export interface SqlDatabase extends SqlRunner {
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
}

const PARAM = /(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)/g;
const names = new Set<string>();

/** One SQL statement with a name, unique in the process: the name of its prepared statement on each connection. */
export class NamedStatement {
  /** The SQL with `$n` placeholders. */
  readonly text: string;
  /** Parameter names in `$n` order. */
  readonly params: readonly string[];

  constructor(
    readonly name: string,
    readonly sql: string,
  ) {
    if (names.has(name)) throw new Error(`two SQL statements are named '${name}': each needs its own name`);
    names.add(name);
    const order: string[] = [];
    this.text = sql.replace(PARAM, (_, param: string) => {
      let i = order.indexOf(param);
      if (i < 0) i = order.push(param) - 1;
      return `$${i + 1}`;
    });
    this.params = order;
  }

  /** The values in `$n` order; throws on a parameter the object lacks (null is a value, undefined is a bug). */
  values(params: object): unknown[] {
    const p = params as Record<string, unknown>;
    return this.params.map((name) => {
      const v = p[name];
      if (v === undefined) throw new Error(`SQL statement '${this.name}': no value for :${name}`);
      return v;
    });
  }
}

/** A statement as a typed function: `(db, params) → rows`. The statement itself is `.statement` (the bench runs it bare). */
export interface Query<P extends object, R> {
  (db: SqlRunner, params: P): Promise<R[]>;
  readonly statement: NamedStatement;
}

export function query<P extends object, R = never>(name: string, sql: string): Query<P, R> {
  const statement = new NamedStatement(name, sql);
  const run = (db: SqlRunner, params: P) => db.run<R>(statement, statement.values(params));
  return Object.assign(run, { statement });
}

/**
 * A statement whose text depends on which optional conditions a call uses (a listing with optional
 * filters): `build(shape)` writes the SQL of one shape, `key(shape)` names it. Each shape is one
 * NamedStatement (`<name>:<key>`), built on its first call, so a listing keeps the plan of exactly the
 * conditions it has, as one statement per combination written out by hand would, without writing
 * them out. The shapes must be few (a handful of flags), not values: a value goes in a parameter.
 */
export interface QueryVariants<S, P extends object, R> {
  (db: SqlRunner, shape: S, params: P): Promise<R[]>;
  /** The statement of one shape (built now if it was not yet). */
  statement(shape: S): NamedStatement;
}

export function queryVariants<S, P extends object, R = never>(name: string, key: (shape: S) => string, build: (shape: S) => string): QueryVariants<S, P, R> {
  const built = new Map<string, NamedStatement>();
  const statement = (shape: S) => {
    const k = key(shape);
    let s = built.get(k);
    if (!s) {
      s = new NamedStatement(`${name}:${k}`, build(shape));
      built.set(k, s);
    }
    return s;
  };
  const run = (db: SqlRunner, shape: S, params: P) => {
    const s = statement(shape);
    return db.run<R>(s, s.values(params));
  };
  return Object.assign(run, { statement });
}
