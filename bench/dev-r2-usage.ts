/**
 * What a `wrangler dev` server's local R2 holds for one lake, read after the server stopped: bytes by
 * kind (WAL segments, sorted tables, manifests, other: GC ledgers, data files, checkpoints) against the
 * live bytes (the newest manifest's sorted tables + the WAL tail after its replay point + the manifest
 * itself), and the newest manifest's size. The state is opened with Miniflare over the server's own
 * persist dir (`--persist-to`, R2 under `v3/r2`), so the counts are R2's own listing, not estimates.
 */
import { join } from "node:path";
import { Miniflare } from "miniflare";
import type { Bucket } from "../storage/api.ts";
import { lakePrefix, manifestPrefix, parseWalKey, walPrefix } from "../storage/keys.ts";
import { decodeManifest } from "../storage/manifest.ts";
import { sstPrefix } from "../storage/sst/key.ts";

/** The bucket name of `wrangler.toml` (`r2_buckets.bucket_name`): wrangler persists R2 under it. */
const DEV_BUCKET_NAME = "ducklake-edge";
/** R2 list page size (R2's own maximum). */
const LIST_PAGE = 1000;

export interface R2Usage {
  objects: number;
  bytes: { segments: number; sortedTables: number; manifests: number; other: number; total: number };
  counts: { segments: number; sortedTables: number; manifests: number; other: number };
  liveBytes: number;
  /** Stored bytes over live bytes. */
  amplification: number;
  manifestBytes: number;
  manifestVersion: number;
  /** What the newest manifest holds, by record kind, and the bytes each kind takes of its JSON. */
  manifestRecords: {
    sortedTables: number;
    l0: number;
    runs: number;
    unreferenced: number;
    gcLedgers: number;
  };
  manifestKindBytes: { sortedTables: number; fences: number; unreferenced: number; gcLedgers: number };
  walTailSegments: number;
}

const jsonBytes = (v: unknown): number => new TextEncoder().encode(JSON.stringify(v)).length;

/** Reads the lake's objects from a stopped dev server's persist dir; `port` for Miniflare's own socket. */
export async function devR2Usage(persistDir: string, lake: string, port: number): Promise<R2Usage> {
  const mf = new Miniflare({
    host: "127.0.0.1",
    port,
    modules: true,
    script: "export default { fetch() { return new Response('r2 usage'); } }",
    r2Buckets: { BUCKET: DEV_BUCKET_NAME },
    r2Persist: join(persistDir, "v3", "r2"),
  });
  try {
    await mf.ready;
    const bucket = (await mf.getR2Bucket("BUCKET")) as unknown as Bucket;
    return await usage(bucket, lake);
  } finally {
    await mf.dispose();
  }
}

async function usage(bucket: Bucket, lake: string): Promise<R2Usage> {
  const bytes = { segments: 0, sortedTables: 0, manifests: 0, other: 0, total: 0 };
  const counts = { segments: 0, sortedTables: 0, manifests: 0, other: 0 };
  const walSizes = new Map<number, number>();
  let newestManifestKey: string | undefined;
  let objects = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({
      prefix: lakePrefix(lake),
      limit: LIST_PAGE,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    for (const o of page.objects) {
      objects++;
      bytes.total += o.size;
      const kind = o.key.startsWith(walPrefix(lake))
        ? "segments"
        : o.key.startsWith(sstPrefix(lake))
          ? "sortedTables"
          : o.key.startsWith(manifestPrefix(lake))
            ? "manifests"
            : "other";
      bytes[kind] += o.size;
      counts[kind]++;
      if (kind === "segments") {
        const id = parseWalKey(lake, o.key);
        if (id !== undefined) walSizes.set(id, o.size);
      }
      // Inverted ids: the listing's first manifest is the newest.
      if (kind === "manifests" && newestManifestKey === undefined) newestManifestKey = o.key;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  if (newestManifestKey === undefined) throw new Error(`lake ${lake} has no manifest in the dev state`);
  const obj = await bucket.get(newestManifestKey);
  if (obj === null) throw new Error(`manifest ${newestManifestKey} vanished`);
  const raw = new Uint8Array(await obj.arrayBuffer());
  const m = decodeManifest(raw, newestManifestKey);
  let tail = 0;
  let tailBytes = 0;
  for (const [id, size] of walSizes) {
    if (id > m.wal.replayAfter) {
      tail++;
      tailBytes += size;
    }
  }
  const tables = m.sortedTables.reduce((sum, t) => sum + (typeof t.size === "number" ? t.size : 0), 0);
  const liveBytes = tables + tailBytes + raw.length;
  return {
    objects,
    bytes,
    counts,
    liveBytes,
    amplification: liveBytes > 0 ? bytes.total / liveBytes : 0,
    manifestBytes: raw.length,
    manifestVersion: m.version,
    manifestRecords: {
      sortedTables: m.sortedTables.length,
      l0: m.sortedTables.filter((t) => t.level === 0).length,
      runs: new Set(m.sortedTables.filter((t) => t.level !== 0).map((t) => t.run ?? 0)).size,
      unreferenced: m.unreferenced.length,
      gcLedgers: (m.gcLedgers ?? []).length,
    },
    manifestKindBytes: {
      sortedTables: jsonBytes(m.sortedTables),
      fences: jsonBytes(m.sortedTables.map((t) => t.fences ?? [])),
      unreferenced: jsonBytes(m.unreferenced),
      gcLedgers: jsonBytes(m.gcLedgers ?? []),
    },
    walTailSegments: tail,
  };
}
