/**
 * The operation-owned overlay a commit attempt stages into. Reads fall through member writes → group
 * writes → a cache of base reads (absent keys remembered too) → the store transaction, so a verb reads
 * only the keys and ranges it depends on, and later reads can never overwrite staged changes. A group
 * member stages into a child layer that is folded into the group on success and discarded on failure
 * (the store transaction has no savepoints). Scans merge the staged writes with the base scan in key order.
 *
 * Base scans are remembered like base gets (docs/decisions/0180-flat-commit-reads.md): the base is one
 * transaction's frozen cut, so a range scanned once answers the same for the rest of the attempt, and a
 * group of k members that each resolve the same table's columns scans the store once, not k times. Every
 * store scan costs a block read per sorted table whose key range covers it, and the tables grow in number
 * with the lake's history, so scans per member made commits slower as the lake aged.
 */
import BTreeImport from "sorted-btree";
import type { Bytes, KeyValue, ReadView, ScanRange } from "../storage/api.ts";
import { keyFromString, keyString, prefixEnd } from "./keys.ts";

type Staged = Bytes | undefined;

/** sorted-btree is CommonJS: bundlers hand over the class, Node's ESM loader the exports object. */
const BTree: typeof BTreeImport =
  (BTreeImport as unknown as { default?: typeof BTreeImport }).default ?? BTreeImport;

/**
 * Bounds on the remembered base scans of one attempt. A scan yielding more entries than
 * `MAX_REMEMBERED_SCAN_ENTRIES` (a row range, not a table's columns) is read from the base again when
 * repeated, and past `MAX_REMEMBERED_SCANS` ranges nothing more is remembered: both are a cache's limits,
 * so reaching them costs reads, never an error.
 */
export const MAX_REMEMBERED_SCAN_ENTRIES = 256;
export const MAX_REMEMBERED_SCANS = 256;

interface Root {
  base: ReadView;
  cache: Map<string, Staged>;
  /** Complete base scans by range (`[start, end, limit]` as JSON), in key order. */
  scans: Map<string, KeyValue[]>;
}

/** Reads a base range, remembering it when it is small and read to its end. */
async function* baseScan(root: Root, range: ScanRange, id: string): AsyncIterable<KeyValue> {
  const known = root.scans.get(id);
  if (known !== undefined) {
    yield* known;
    return;
  }
  let kept: KeyValue[] | undefined = root.scans.size < MAX_REMEMBERED_SCANS ? [] : undefined;
  for await (const kv of root.base.scan(range)) {
    if (kept !== undefined) {
      if (kept.length < MAX_REMEMBERED_SCAN_ENTRIES) kept.push(kv);
      else kept = undefined;
    }
    yield kv;
  }
  // Only a scan the caller read to its end is whole (a caller that stops early never gets here).
  if (kept !== undefined && root.scans.size < MAX_REMEMBERED_SCANS) root.scans.set(id, kept);
}

/** A normalized scan range: keys in [start, end) as latin1 strings; end undefined = unbounded. */
function normalize(range: ScanRange): { start: string; end: string | undefined; limit: number | undefined } {
  let start = range.start ? keyString(range.start) : "";
  let end = range.end ? keyString(range.end) : undefined;
  if (range.prefix) {
    const p = keyString(range.prefix);
    if (p > start) start = p;
    const pe = prefixEnd(range.prefix);
    const pes = pe ? keyString(pe) : undefined;
    if (pes !== undefined && (end === undefined || pes < end)) end = pes;
  }
  return { start, end, limit: range.limit };
}

export class Staging {
  private readonly writes = new BTree<string, Staged>();
  private constructor(
    private readonly root: Root,
    private readonly parent: Staging | undefined,
  ) {}

  static over(base: ReadView): Staging {
    return new Staging({ base, cache: new Map(), scans: new Map() }, undefined);
  }

  /** A child layer for one group member; fold it with `commitToParent()` or just drop it. */
  child(): Staging {
    return new Staging(this.root, this);
  }

  commitToParent(): void {
    if (!this.parent) throw new Error("the group layer has no parent to fold into");
    const parent = this.parent;
    this.writes.forEachPair((k, v) => {
      parent.writes.set(k, v);
    });
    this.writes.clear();
  }

  async get(key: Bytes): Promise<Bytes | undefined> {
    const ks = keyString(key);
    for (let layer: Staging | undefined = this; layer; layer = layer.parent) {
      if (layer.writes.has(ks)) return layer.writes.get(ks);
    }
    if (this.root.cache.has(ks)) return this.root.cache.get(ks);
    const v = await this.root.base.get(key);
    this.root.cache.set(ks, v);
    return v;
  }

  /** Whether this layer itself (not a parent) staged a write of `key`: what this member changed. */
  stagedHere(key: Bytes): boolean {
    return this.writes.has(keyString(key));
  }

  put(key: Bytes, value: Bytes): void {
    this.writes.set(keyString(key), value);
  }

  delete(key: Bytes): void {
    this.writes.set(keyString(key), undefined);
  }

  /** Staged entries in range, innermost layer winning. */
  private stagedIn(start: string, end: string | undefined): Map<string, Staged> {
    const layers: Staging[] = [];
    for (let layer: Staging | undefined = this; layer; layer = layer.parent) layers.unshift(layer);
    const out = new Map<string, Staged>();
    for (const layer of layers) {
      for (const [k, v] of layer.writes.entries(start)) {
        if (end !== undefined && k >= end) break;
        out.set(k, v);
      }
    }
    return out;
  }

  async *scan(range: ScanRange): AsyncIterable<KeyValue> {
    const { start, end, limit } = normalize(range);
    const staged = [...this.stagedIn(start, end)].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const baseRange: ScanRange = { start: keyFromString(start) };
    if (end !== undefined) baseRange.end = keyFromString(end);
    // With staged deletes in range the base may need to yield more than `limit` entries.
    if (limit !== undefined && staged.length === 0) baseRange.limit = limit;
    let emitted = 0;
    let i = 0;
    const emitStagedBefore = function* (bound: string | undefined): Generator<KeyValue> {
      while (i < staged.length) {
        const entry = staged[i];
        if (!entry || (bound !== undefined && entry[0] >= bound)) return;
        i++;
        if (entry[1] !== undefined) yield { key: keyFromString(entry[0]), value: entry[1] };
      }
    };
    const id = JSON.stringify([start, end ?? null, baseRange.limit ?? null]);
    for await (const kv of baseScan(this.root, baseRange, id)) {
      const ks = keyString(kv.key);
      for (const s of emitStagedBefore(ks)) {
        yield s;
        if (limit !== undefined && ++emitted >= limit) return;
      }
      const own = staged[i];
      if (own && own[0] === ks) {
        i++;
        if (own[1] === undefined) continue;
        yield { key: kv.key, value: own[1] };
      } else {
        yield kv;
      }
      if (limit !== undefined && ++emitted >= limit) return;
    }
    for (const s of emitStagedBefore(undefined)) {
      yield s;
      if (limit !== undefined && ++emitted >= limit) return;
    }
  }

  /** Every staged write of this layer (the group layer's are the batch). */
  entries(): { key: Bytes; value: Bytes | undefined }[] {
    const out: { key: Bytes; value: Bytes | undefined }[] = [];
    this.writes.forEachPair((k, v) => {
      out.push({ key: keyFromString(k), value: v });
    });
    return out;
  }

  /** Keys this layer itself puts (not deletes) under `prefix`, in key order. */
  stagedPutKeys(prefix: Bytes): Bytes[] {
    const start = keyString(prefix);
    const pe = prefixEnd(prefix);
    const end = pe ? keyString(pe) : undefined;
    const out: Bytes[] = [];
    for (const [k, v] of this.writes.entries(start)) {
      if (end !== undefined && k >= end) break;
      if (v !== undefined) out.push(keyFromString(k));
    }
    return out;
  }

  get size(): number {
    return this.writes.size;
  }
}
