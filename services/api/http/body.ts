import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { AppError } from '../../../shared/errors/app-error';

/*
 * JSON bodies, read per route with the route's own limit (docs/api.md §1, "Body limits"). Sign-in,
 * scans, confirms and every other small command take a few KB; only the bulk loads take megabytes,
 * and those are read after the caller is authenticated (services/api/http/register-routes.ts). A body
 * that declares a length over the limit is answered 413 before a byte of it is read; one sent without
 * a length (chunked) is refused when it passes the limit, without reading the rest. Either way the
 * connection is closed after the answer, so the rest is never read.
 */

export const JSON_TYPES = ['application/json', 'text/json', 'application/*+json'];

/** Sign-in, scans, confirms and the other small commands. */
export const SMALL_BODY_LIMIT = 8 * 1024;
/** The bulk loads (/admin/warehouses, products, orders, picklists): 10,000 rows fit. */
export const BULK_BODY_LIMIT = 10 * 1024 * 1024;
/** The imports (/admin/orders/import, ...): a CSV of 100,000 order lines fits. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;
/** The one type read as text, by the routes that take it (`acceptsCsv` in the route table). */
export const CSV_TYPE = 'text/csv';

/** The charset of the Content-Type header, lower case (UTF-8 when it names none). */
function charsetOf(req: Request): string {
  const [, ...params] = (req.headers['content-type'] ?? '').split(';');
  return (params.map((p) => /^\s*charset\s*=\s*"?([^";]*)"?\s*$/i.exec(p)?.[1]).find(Boolean) ?? 'utf-8').toLowerCase();
}

/** How long a connection whose body was refused unread stays open after the answer, unread. */
const LINGER_MS = 1_000;

/**
 * For an answer to a request whose body was not read (too large, or refused before it was read): the
 * rest of the body is never read. Node would read it off the wire to throw it away and then close the
 * socket at once, and a client still sending would lose the answer to the reset its unread bytes cause.
 * Instead the answer goes out with `Connection: close`, the socket stops reading, is half-closed once the
 * answer is written, and dropped LINGER_MS later, when the client has long read the answer.
 */
export function closeWithoutReading(req: Request, res: Response): void {
  res.setHeader('Connection', 'close');
  // Node 20: IncomingMessage#_dump (called when the answer ends) reads the rest unless already dumped.
  (req as unknown as { _dumped: boolean })._dumped = true;
  req.pause();
  const socket = req.socket as Request['socket'] & { destroySoon?: () => void };
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}

function tooLarge(limit: number): AppError {
  return new AppError(
    'payload-too-large',
    `The request body is larger than this operation's limit of ${formatBytes(limit)}; send less per request${limit >= BULK_BODY_LIMIT ? ' (a bulk load: split its rows over several calls)' : ''}.`,
  );
}

/** Parse failures in the shape the error handler knows from body-parser (error-handler.ts). */
function parseFailed(err: unknown): Error {
  return Object.assign(new Error(err instanceof Error ? err.message : 'invalid JSON'), { type: 'entity.parse.failed', status: 400 });
}

/** The bytes of an uncompressed body up to `limit`; a longer one rejects at the limit, and the rest is left unread. */
function readUpTo(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(Object.assign(err, { status: 400, type: 'request.aborted' }));
    };
    const onClose = () => {
      if (req.readableEnded) return;
      cleanup();
      reject(Object.assign(new Error('request aborted'), { status: 400, type: 'request.aborted' }));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const fallbacks = new Map<number, RequestHandler>();
/** express.json for what the reader above leaves to it: compressed bodies and charsets other than UTF-8. */
function fallbackParser(limit: number): RequestHandler {
  let parser = fallbacks.get(limit);
  if (!parser) {
    parser = express.json({ type: JSON_TYPES, limit, strict: false });
    fallbacks.set(limit, parser);
  }
  return parser;
}

/** A body sent with another Content-Type (text/plain, a form) to an operation that takes JSON: 415, before it is read. */
function otherMediaType(req: Request, acceptsCsv = false): AppError {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().slice(0, 100);
  const takes = acceptsCsv
    ? 'this operation takes JSON or CSV: send it with "Content-Type: application/json" or "Content-Type: text/csv"'
    : 'this operation takes JSON: send it with "Content-Type: application/json"';
  return new AppError('unsupported-media-type', `${type ? `The request body is ${type}` : 'The request body has no Content-Type'}; ${takes}.`);
}

/**
 * Reads a `text/csv` body into req.body as a string, within `limit` bytes, for a route that takes one
 * (`acceptsCsv`), and otherwise the JSON body as readJsonBody does.
 */
export function readBody(req: Request, res: Response, limit: number, takesJson: boolean, acceptsCsv = false): Promise<void> {
  const empty = req.headers['content-length'] !== undefined && Number(req.headers['content-length']) === 0;
  if (acceptsCsv && !empty && req.body === undefined && req.is(CSV_TYPE) === false && req.is(JSON_TYPES) === false) return Promise.reject(otherMediaType(req, true));
  if (!acceptsCsv || req.body !== undefined || !req.is(CSV_TYPE)) return readJsonBody(req, res, limit, takesJson);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  const charset = charsetOf(req);
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if ((charset !== 'utf-8' && charset !== 'utf8') || encoding !== 'identity') {
    return Promise.reject(
      new AppError('validation-failed', `A CSV body is read as uncompressed UTF-8 text; this one says charset '${charset}' and encoding '${encoding}'. Export the file as UTF-8 and send it as it is.`, {
        errors: [{ path: 'body', message: 'must be uncompressed UTF-8 text' }],
      }),
    );
  }
  return readUpTo(req, limit).then((buf) => {
    try {
      req.body = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      throw new AppError('validation-failed', 'The CSV body is not UTF-8 text; export the file as UTF-8 ("CSV UTF-8") and send it again.', {
        errors: [{ path: 'body', message: 'is not valid UTF-8' }],
      });
    }
  });
}

/**
 * Reads and parses the request's JSON body (when it has one of the JSON types) into req.body, within
 * `limit` bytes. Express 5 leaves req.body undefined when no body, or no JSON content type, was sent.
 * `takesJson` (the operation has a body): a body of another type is refused with 415 rather than
 * taken for a missing one.
 */
export function readJsonBody(req: Request, res: Response, limit: number, takesJson = false): Promise<void> {
  // req.is: null without a body (no length, no chunks), false for another type.
  const json = req.is(JSON_TYPES);
  // `Content-Length: 0` counts as a body to req.is (false without a type): an empty body is none.
  const empty = req.headers['content-length'] !== undefined && Number(req.headers['content-length']) === 0;
  if (json === false && takesJson && !empty && req.body === undefined) return Promise.reject(otherMediaType(req));
  if (req.body !== undefined || !json) return Promise.resolve();
  const charset = charsetOf(req);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' || (charset !== 'utf-8' && charset !== 'utf8')) {
    return new Promise((resolve, reject) => fallbackParser(limit)(req, res, ((err?: unknown) => (err ? reject(err) : resolve())) as NextFunction));
  }
  return readUpTo(req, limit).then((buf) => {
    if (buf.length === 0) {
      req.body = {};
      return;
    }
    try {
      req.body = JSON.parse(buf.toString('utf8'));
    } catch (err) {
      throw parseFailed(err);
    }
  });
}
