import http from 'node:http';

export interface HttpAnswer {
  /** 0 when no HTTP answer came (connection refused or reset, timeout). */
  status: number;
  body: unknown;
  /** The problem code of an error answer, or the socket error's code. */
  code: string | null;
}

export type RequestOptions = { auth?: string; body?: unknown; timeoutMs?: number; headers?: Record<string, string> };

/** What a load needs of a client: the bench's own (BenchHttp) or one that records every answer. */
export interface HttpClient {
  request(method: string, path: string, opts?: RequestOptions): Promise<HttpAnswer>;
}

/**
 * Plain node:http with one keep-alive agent, so the figures are the service's and not a client
 * library's. maxSockets bounds the connections; requests beyond it wait in the agent, which the
 * open loop counts as latency (it measures from the scheduled send time). `fresh`: every request on a
 * connection of its own, closed after the answer (devices that reconnect, a load balancer's probes).
 */
export class BenchHttp implements HttpClient {
  private readonly agent: http.Agent | false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    maxSockets = 256,
    private readonly fresh = false,
  ) {
    this.agent = fresh ? false : new http.Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 30_000 });
  }

  request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpAnswer> {
    const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json', ...(this.fresh ? { connection: 'close' } : {}), ...opts.headers };
    if (opts.auth) headers.authorization = opts.auth;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    return new Promise((resolve) => {
      const req = http.request({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : null;
          } catch {
            // not JSON: keep the text
          }
          const status = res.statusCode ?? 0;
          const code = status >= 400 ? (((body as { code?: string } | null)?.code as string | undefined) ?? `http-${status}`) : null;
          resolve({ status, body, code });
        });
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, body: null, code: err.code ?? err.message }));
      });
      req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(Object.assign(new Error('client timeout'), { code: 'CLIENT_TIMEOUT' })));
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, body: null, code: err.code ?? err.message }));
      if (payload) req.write(payload);
      req.end();
    });
  }

  close(): void {
    if (this.agent) this.agent.destroy();
  }
}

/** One request as RecordingHttp saw it: sent at `at` (performance.now()), answered `ms` later with `status` (0: none). */
export interface RecordedAnswer {
  at: number;
  ms: number;
  status: number;
  method: string;
  path: string;
}

/** Every answer's time from its own send (ms) and status, of the requests sent through it since the last take(). */
export class RecordingHttp implements HttpClient {
  private answers: RecordedAnswer[] = [];

  constructor(private readonly inner: HttpClient) {}

  async request(method: string, path: string, opts?: RequestOptions): Promise<HttpAnswer> {
    const t0 = performance.now();
    const answer = await this.inner.request(method, path, opts);
    this.answers.push({ at: t0, ms: performance.now() - t0, status: answer.status, method, path });
    return answer;
  }

  take(): RecordedAnswer[] {
    const out = this.answers;
    this.answers = [];
    return out;
  }
}
