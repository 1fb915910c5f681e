/** Shared helpers for the sorted-table tests: a sorted in-memory model and the real R2 bucket. */
import { env } from "cloudflare:workers";
import type { Bucket, Bytes, ScanRange, SortedEntry } from "../../../storage/api.ts";
import { compareBytes, rangeBounds } from "../../../storage/bytes.ts";

export const bucket: Bucket = env.BUCKET as R2Bucket;

export const te = (s: string): Bytes => new TextEncoder().encode(s);

export function hex(b: Bytes | undefined): string | undefined {
  return b === undefined ? undefined : Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Entries sorted and deduplicated by key (last one wins), the shape a table is built from. */
export function sortedModel(entries: readonly SortedEntry[]): SortedEntry[] {
  const byKey = new Map<string, SortedEntry>();
  for (const e of entries) byKey.set(hex(e.key)!, e);
  return [...byKey.values()].sort((a, b) => compareBytes(a.key, b.key));
}

/** What a scan of `model` over `range` must yield (limit counts tombstones too). */
export function modelScan(model: readonly SortedEntry[], range: ScanRange): SortedEntry[] {
  const { lo, hi } = rangeBounds(range);
  const out = model.filter(
    (e) =>
      (lo === undefined || compareBytes(e.key, lo) >= 0) && (hi === undefined || compareBytes(e.key, hi) < 0),
  );
  return range.limit === undefined ? out : out.slice(0, Math.max(0, range.limit));
}

/** Comparable form of entries for toEqual (hex strings; null marks a tombstone). */
export function show(entries: readonly (SortedEntry | undefined)[]): (string | null)[][] {
  return entries.map((e) =>
    e === undefined ? ["<absent>"] : [hex(e.key)!, e.value === undefined ? null : hex(e.value)!],
  );
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Sequential keys "<prefix><i, 8 digits>" with small deterministic values. */
export function* numberedEntries(n: number, prefix = "k/", tombstoneEvery = 0): Generator<SortedEntry> {
  for (let i = 0; i < n; i++) {
    const key = te(`${prefix}${String(i).padStart(8, "0")}`);
    const value =
      tombstoneEvery > 0 && i % tombstoneEvery === 0 ? undefined : te(`value-${i}-${"x".repeat(i % 40)}`);
    yield { key, value };
  }
}
