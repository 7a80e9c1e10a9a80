import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthClaims } from '../../../shared/auth/jwt';
import type { CommandName } from '../../../shared/commands/commands';
import type { Role } from '../../../shared/db/entities/employee.entity';
import type { ApiDeps } from '../api-deps';
import type { SqlRunner } from '../../../shared/db/named-sql';

type AnyObject = z.ZodType<Record<string, unknown>>;

/** Who may call an operation: nobody unauthenticated except the few `public` ones (token, health). */
export type Access = 'public' | 'authenticated' | readonly Role[];

export interface RouteContext<P, Q, B> {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
  /** Set on every non-public route. */
  auth: AuthClaims;
  /**
   * This request's own entity manager, forked on first use: a route that only runs plain SQL (`sql`)
   * never makes one (the scan, the confirm, the wall hubs poll).
   */
  readonly em: EntityManager;
  /** Plain SQL on the ORM's pool, one statement in autocommit each, unnamed (as emSql); no entity manager behind it. */
  sql: SqlRunner;
  /** The same, each statement by its name, prepared when DATABASE_PREPARED_STATEMENTS: for the reads hubs poll. */
  preparedSql: SqlRunner;
  deps: ApiDeps;
}

/** What a use-case reads its data through: the request's entity manager (forked when first read) or plain SQL on the pool. */
export type RequestDb = Pick<RouteContext<unknown, unknown, unknown>, 'em' | 'sql'>;

export interface RouteDef<P = any, Q = any, B = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI-style path relative to the mount point, e.g. `/walls/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  /** What the operation does, for a 403's detail ("Only an Admin may <action>"); default: the summary up to its first colon. */
  action?: string;
  description?: string;
  tags: string[];
  access: Access;
  /** Sorting operations answer 403 subscription-disabled for a client whose subscription is off. */
  requiresSubscription?: boolean;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The body may be absent (e.g. an optional confirm barcode). */
  bodyOptional?: boolean;
  /**
   * The largest JSON body, in bytes (more: 413 payload-too-large, answered before the body is read);
   * default SMALL_BODY_LIMIT (http/body.ts). A route with a larger limit reads its body only after the
   * caller is authenticated and authorized.
   */
  bodyLimit?: number;
  /**
   * The body may also be `text/csv` (UTF-8, within bodyLimit): read as text and handed to the handler
   * as a string, unchecked by `body`, which describes the JSON form.
   */
  acceptsCsv?: boolean;
  /** Extra request headers worth documenting (Idempotency-Key, X-Pin). */
  headers?: { name: string; description: string; required?: boolean }[];
  /** Success body schema for the OpenAPI document; omitted for empty answers. */
  response?: z.ZodType;
  /** The success status: 200 (the default), or 202 for an operation that hands its work on (a print job). */
  successStatus?: 200 | 202;
  /** Non-JSON success answers (ZPL, PDF, event streams). */
  responseContentType?: string;
  /** Error codes this operation may answer, for the OpenAPI document. */
  errors?: string[];
  deprecated?: boolean;
  /**
   * For a deprecated operation: the URL of its successor. Its answers then carry `Deprecation: true` and
   * `Link: <url>; rel="successor-version"`.
   */
  successor?: (ctx: { req: Request; params: P; query: Q }) => string;
  /**
   * The workflow command the operation sends. While the admission policy would refuse it, the request is
   * answered 503 before authentication, validation and reads (docs/operations.md "Overload").
   */
  command?: CommandName;
  /**
   * A write (not GET) that changes nothing a wall's view shows (GET /walls/{id}) but through workflow
   * commands, whose answers drop their walls from the API processes' wall view caches: a sign-in, a
   * label, a session's start. Any other write drops every wall from them once it ran
   * (use-cases/walls/wall-view-cache.ts), so a write route added without a thought is safe.
   */
  leavesWallViews?: true;
  /** Also accept the token as `?access_token=` (browsers' EventSource cannot set headers). */
  allowQueryToken?: boolean;
  /**
   * Returns the body to send as JSON with status 200 (or `successStatus`), or `undefined` for an empty 200.
   * A handler that writes the response itself (PDF, SSE) sets `res.headersSent`.
   */
  handler: (ctx: RouteContext<P, Q, B>) => Promise<unknown> | unknown;
}

/** Identity helper that keeps the generic parameters inferred from the zod schemas. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  def: RouteDef<P, Q, B>,
): RouteDef<P, Q, B> {
  return def;
}

export type { AnyObject };
