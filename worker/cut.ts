/**
 * Opening the cut a read answers from, and shaping the response: latest reads are never cached; reads
 * pinned to a snapshot or checkpoint carry a content ETag (304 on a match) and may be cached by clients.
 */
import type { Context } from "hono";
import { type LakeReader, openCheckpoint, openLatest, type ReaderCut } from "../storage/index.ts";
import type { AppEnv } from "./app-env.ts";
import type { Env } from "./env.ts";
import { workerObjectCache } from "./object-cache.ts";
import type { Selector } from "./selector.ts";

export interface OpenedCut {
  view: LakeReader;
  cut: ReaderCut;
  /** The answer cannot change: pinned by snapshot or checkpoint. */
  fixed: boolean;
}

export interface OpenCutOptions {
  /**
   * The read walks the whole keyspace (a scan plan: names, tables, files): open every sorted table's
   * metadata as the cut opens (≤ PREFETCH_TABLES_MAX, storage/layers.ts), so the plan's prefetch
   * (docs/decisions/0170-plan-prefetch.md) finds it under way. Routes that read one kind leave it off:
   * cold, it costs one metadata GET per table.
   */
  prefetchTables?: boolean;
}

export async function openCut(
  env: Env,
  lake: string,
  sel: Selector,
  options: OpenCutOptions = {},
): Promise<OpenedCut> {
  const cache = workerObjectCache();
  const prefetchTables = options.prefetchTables === true;
  const view =
    sel.checkpoint !== undefined
      ? await openCheckpoint(env.BUCKET, lake, sel.checkpoint, { cache, prefetchTables })
      : await openLatest(env.BUCKET, lake, {
          cache,
          prefetchTables,
          ...(sel.after !== undefined ? { after: sel.after } : {}),
        });
  return { view, cut: view.cut, fixed: sel.checkpoint !== undefined || sel.snapshot !== undefined };
}

async function etagOf(body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  const hex = [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `"${hex}"`;
}

export async function respondRead(
  c: Context<AppEnv>,
  opened: OpenedCut,
  payload: unknown,
  contentType = "application/json; charset=utf-8",
): Promise<Response> {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const headers = new Headers({ "content-type": contentType });
  if (!opened.fixed) {
    headers.set("cache-control", "no-store");
    return new Response(body, { status: 200, headers });
  }
  // Pinned answers never change; the cut fields differ between cuts, so hash without them for stability.
  const tag = await etagOf(
    typeof payload === "string" ? payload : JSON.stringify(payload, (k, v) => (k === "cut" ? undefined : v)),
  );
  headers.set("etag", tag);
  // Time-travel answers are fixed except lake options (latest values), which the ETag covers.
  headers.set("cache-control", "private, max-age=300");
  if (c.req.header("if-none-match") === tag) return new Response(null, { status: 304, headers });
  return new Response(body, { status: 200, headers });
}
