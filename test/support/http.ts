/** Test client for the Worker under test: real routing, real Durable Objects, real miniflare R2. */
import { SELF } from "cloudflare:test";

/** Tokens configured for tests in vitest.config.ts (AUTH_TOKENS binding). */
export const TOKENS = {
  adminAll: "t-admin-all-0123456789",
  writeSales: "t-write-sales-0123456789",
  readSales: "t-read-sales-0123456789",
} as const;

export interface CallOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

export async function call(path: string, opts: CallOptions = {}): Promise<Response> {
  const headers = new Headers(opts.headers);
  const token = opts.token === undefined ? TOKENS.adminAll : opts.token;
  if (token !== null) headers.set("authorization", `Bearer ${token}`);
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers.set("content-type", "application/json");
  }
  return SELF.fetch(`https://edge.test${path}`, { method: opts.method ?? "GET", headers, body });
}

export interface ErrorEnvelope {
  error: { code: string; message: string; requestId: string };
}

export async function expectError(res: Response, status: number, code: string): Promise<ErrorEnvelope> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status} ${code}, got ${res.status}: ${text}`);
  const body = JSON.parse(text) as ErrorEnvelope;
  if (body.error?.code !== code) throw new Error(`expected code ${code}, got ${text}`);
  if (!body.error.message || !body.error.requestId) throw new Error(`envelope incomplete: ${text}`);
  return body;
}

/**
 * A request whose `url` is `rawUrl` verbatim (every other member is the real Request's): a `Request` built
 * in JS resolves dot segments at once (the URL standard), so this is how a test delivers a URL exactly as a
 * client put it on the wire, the way a runtime that does not normalise would.
 */
export function asSent(rawUrl: string, init: RequestInit = {}): Request {
  const real = new Request("https://edge.test/placeholder", init);
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "url") return rawUrl;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
