/**
 * A real Miniflare R2 bucket reached only through asynchronous requests, for benchmarks that measure
 * event-loop stalls and tail latency (docs/decisions/0180-flat-commit-reads.md).
 *
 * Why not `mf.getR2Bucket()` (harness.ts): Miniflare's Node proxy answers every property read on a
 * returned object (`key`, `size`, `etag`, `uploaded`, `customMetadata`) with a synchronous round trip to
 * workerd (`Atomics.wait`), so each GET blocked the benchmark's event loop for 18-34 ms on the shared
 * 2-core machine (measured: five property reads of one GET), and every commit in flight waited with it. In
 * the Workers runtime those are plain fields. Here a tiny worker owns the binding and answers each call
 * whole (metadata in a header, the body as bytes), through `dispatchFetch`, which never blocks.
 */
import { Miniflare } from "miniflare";
import type {
  Bucket,
  BucketGetOptions,
  BucketListOptions,
  BucketListResult,
  BucketObject,
  BucketObjectBody,
  BucketPutOptions,
} from "../storage/api.ts";
import type { LocalBucket } from "./harness.ts";

const SCRIPT = `
const meta = (o) => o === null ? null : {
  key: o.key, size: o.size, etag: o.etag, uploaded: o.uploaded.toISOString(),
  ...(o.customMetadata && Object.keys(o.customMetadata).length > 0 ? { customMetadata: o.customMetadata } : {}),
};
export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const op = url.pathname.slice(1);
    const args = JSON.parse(decodeURIComponent(req.headers.get("x-args") ?? "{}"));
    try {
      if (op === "put") {
        const body = args.isNull ? null : new Uint8Array(await req.arrayBuffer());
        return Response.json(meta(await env.B.put(args.key, body, args.options)));
      }
      if (op === "get") {
        const o = await env.B.get(args.key, args.options);
        if (o === null) return new Response(null, { status: 404 });
        return new Response(await o.arrayBuffer(), { headers: { "x-meta": encodeURIComponent(JSON.stringify(meta(o))) } });
      }
      if (op === "head") return Response.json(meta(await env.B.head(args.key)));
      if (op === "list") {
        const r = await env.B.list(args.options);
        return Response.json({ ...r, objects: r.objects.map(meta) });
      }
      if (op === "delete") {
        await env.B.delete(args.keys);
        return Response.json(null);
      }
      return new Response("unknown op " + op, { status: 400 });
    } catch (e) {
      return new Response(String(e && e.stack || e), { status: 500 });
    }
  },
};
`;

interface WireObject extends Omit<BucketObject, "uploaded"> {
  uploaded: string;
}

const fromWire = (o: WireObject): BucketObject => ({ ...o, uploaded: new Date(o.uploaded) });

async function toBytes(value: ArrayBuffer | ArrayBufferView | string | ReadableStream): Promise<Uint8Array> {
  if (typeof value === "string") return new TextEncoder().encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new Uint8Array(await new Response(value).arrayBuffer());
}

/** Starts a throwaway Miniflare instance with one in-memory R2 bucket behind an asynchronous worker. */
export async function workerBucket(): Promise<LocalBucket> {
  const mf = new Miniflare({ modules: true, script: SCRIPT, r2Buckets: ["B"], r2Persist: false });
  await mf.ready;
  const call = async (op: string, args: unknown, body?: Uint8Array): Promise<Response> => {
    const res = await mf.dispatchFetch(`http://bench/${op}`, {
      method: "POST",
      headers: { "x-args": encodeURIComponent(JSON.stringify(args)) },
      ...(body !== undefined ? { body } : {}),
    });
    if (res.status >= 500 || res.status === 400) throw new Error(`bucket ${op}: ${await res.text()}`);
    return res as unknown as Response;
  };
  const bucket: Bucket = {
    async put(key, value, options?: BucketPutOptions) {
      const res = await call(
        "put",
        { key, options, isNull: value === null },
        value === null ? undefined : await toBytes(value),
      );
      const o = (await res.json()) as WireObject | null;
      return o === null ? null : fromWire(o);
    },
    async get(key, options?: BucketGetOptions): Promise<BucketObjectBody | null> {
      const res = await call("get", { key, options });
      if (res.status === 404) {
        await res.arrayBuffer();
        return null;
      }
      const bytes = await res.arrayBuffer();
      const o = fromWire(JSON.parse(decodeURIComponent(res.headers.get("x-meta") ?? "")) as WireObject);
      return { ...o, arrayBuffer: async () => bytes };
    },
    async head(key) {
      const o = (await (await call("head", { key })).json()) as WireObject | null;
      return o === null ? null : fromWire(o);
    },
    async list(options?: BucketListOptions): Promise<BucketListResult> {
      const r = (await (await call("list", { options })).json()) as Omit<BucketListResult, "objects"> & {
        objects: WireObject[];
      };
      return { ...r, objects: r.objects.map(fromWire) };
    },
    async delete(keys) {
      await (await call("delete", { keys })).arrayBuffer();
    },
  };
  return { bucket, dispose: () => mf.dispose() };
}
