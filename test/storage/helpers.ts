/** Shared helpers for storage tests: the real miniflare bucket wrapped in the fault bucket, byte helpers. */
import { env } from "cloudflare:workers";
import type { Bucket, Bytes, ReadView, Store, WriterOptions } from "../../storage/api.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { openWriter } from "../../storage/open.ts";

let counter = 0;

/** Storage is isolated per test file, not per test: every test uses its own lake. */
export function lakeName(tag: string): string {
  counter++;
  return `${tag}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function realBucket(): Bucket {
  return env.BUCKET as unknown as Bucket;
}

/** A bucket that passes every call to `inner`: extend it and override the call a test intercepts. */
export class DelegatingBucket implements Bucket {
  constructor(protected readonly inner: Bucket) {}
  put: Bucket["put"] = (k, v, o) => this.inner.put(k, v, o);
  get: Bucket["get"] = (k, o) => this.inner.get(k, o);
  head: Bucket["head"] = (k) => this.inner.head(k);
  delete: Bucket["delete"] = (k) => this.inner.delete(k);
  list: Bucket["list"] = (o) => this.inner.list(o);
}

export function faultBucket(seed = 1): FaultBucket {
  return new FaultBucket(realBucket(), { seed });
}

/** Tries of one bucket call under FAST: a PUT whose every attempt fails ends in OutcomeUnknown. */
export const FAST_ATTEMPTS = 4;

/** Fast retries so fault tests do not sleep (no backoff timer: retries never depend on scheduling). */
export const FAST: WriterOptions = { retry: { attempts: FAST_ATTEMPTS, backoffMs: 0 } };

export function open(bucket: Bucket, lake: string, options: WriterOptions = {}): Promise<Store> {
  return openWriter(bucket, lake, { ...FAST, ...options });
}

const enc = new TextEncoder();
const dec = new TextDecoder();
export const b = (s: string): Bytes => enc.encode(s);
export const s = (x: Bytes | undefined): string | undefined => (x === undefined ? undefined : dec.decode(x));

/** Every live key/value of a view as a plain object (utf-8 decoded). */
export async function dump(view: ReadView): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const kv of view.scan({})) out[dec.decode(kv.key)] = dec.decode(kv.value);
  return out;
}

/** Keys of every object of a lake, relative to its prefix, in list order. */
export async function objectKeys(bucket: Bucket, lake: string): Promise<string[]> {
  const prefix = `lakes/${lake}/`;
  const keys: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) keys.push(o.key.slice(prefix.length));
    if (!page.truncated || !page.cursor) return keys;
    cursor = page.cursor;
  }
}
