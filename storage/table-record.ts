/**
 * How a manifest lists a sorted table (`manifest.sortedTables[i]`). The manifest codec keeps these records
 * loose (`{key, ...}`); this file fixes their fields and validates them where they are used, so a damaged
 * record is Corruption rather than a wrong read.
 *
 * Order in `manifest.sortedTables`: level-0 tables first, NEWEST FIRST (array order is merge order; ids
 * are for uniqueness only), then the sorted runs, newest first (highest `run` first), each run's
 * partitions in key order. Partitions of one run never overlap; runs may overlap each other
 * (docs/decisions/0162-tiered-runs.md).
 *
 * Record fields (keys hex-encoded so the manifest stays readable JSON):
 *   key          `lakes/<lake>/sst/<epoch>-<id>.sst`
 *   level        0 = an L0 table (a memtable flush; may overlap anything), 1 = a sorted-run partition
 *   run          (level 1, optional; absent = 0) which sorted run the partition belongs to; a higher run is
 *                newer (merges into a run keep its number, a merge of L0 makes a new highest one)
 *   epoch, id    the key's parts (epoch = writer epoch that wrote it)
 *   size, metaOffset            object size and metadata start: opening the table is one exact range GET
 *   minKey, maxKey              hex, inclusive; reads outside them never open the table
 *   entries, tombstones, blocks counts from the table's footer
 *   mergedBelow  (optional) hex key: entries with key < mergedBelow were already merged into run
 *                `mergeInto` by an unfinished compaction; readers must ignore them in this table
 *   mergeInto    (optional, with mergedBelow; absent = run 0) the run an unfinished compaction merges
 *                this table into
 *   fences       (optional) [[firstKeyHex, byteOffset], ...]: ≤ FENCES_PER_TABLE_MAX block starts the
 *                builder chose (storage/sst/fences.ts), so a reader can fetch a range's blocks beside the
 *                table's metadata (docs/decisions/0175-block-fences.md). Records written before fences
 *                existed have none and read the ordinary way; a reader never trusts them (it adopts
 *                blocks by the real index and their checksums)
 */
import { z } from "zod";
import type { Bytes } from "./api.ts";
import { compareBytes, fromHex, toHex } from "./bytes.ts";
import { Corruption } from "./errors.ts";
import type { SortedTableRecord } from "./manifest.ts";
import { FENCE_KEY_BYTES_MAX, FENCES_PER_TABLE_MAX, type Fence } from "./sst/fences.ts";
import { parseSstKey } from "./sst/key.ts";
import type { SstInfo } from "./sst/writer.ts";

const safeInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const hexKey = z.string().regex(/^(?:[0-9a-f]{2})*$/);

const tableRecordSchema = z
  .object({
    key: z.string(),
    level: z.union([z.literal(0), z.literal(1)]),
    epoch: safeInt,
    id: safeInt,
    size: safeInt,
    metaOffset: safeInt,
    minKey: hexKey,
    maxKey: hexKey,
    entries: safeInt,
    tombstones: safeInt,
    blocks: safeInt,
    run: safeInt.optional(),
    mergedBelow: hexKey.optional(),
    mergeInto: safeInt.optional(),
    fences: z
      .array(
        z.tuple([
          z
            .string()
            .regex(/^(?:[0-9a-f]{2})*$/)
            .max(2 * FENCE_KEY_BYTES_MAX),
          safeInt,
        ]),
      )
      .max(FENCES_PER_TABLE_MAX)
      .optional(),
  })
  .loose();

export type TableRecord = z.infer<typeof tableRecordSchema>;

/** A validated record with its key bounds decoded. */
export interface TableRef {
  record: TableRecord;
  minKey: Bytes;
  maxKey: Bytes;
  mergedBelow: Bytes | undefined;
  /** The run a level-1 partition belongs to (0 for L0 tables and records written before runs had numbers). */
  run: number;
  /** The record's block fences decoded; undefined for a record written before fences existed. */
  fences: Fence[] | undefined;
}

export const LEVEL_L0 = 0;
export const LEVEL_RUN = 1;

export function tableRecord(info: SstInfo, level: 0 | 1, run?: number): TableRecord {
  return {
    ...(level === LEVEL_RUN && run !== undefined && run > 0 ? { run } : {}),
    key: info.key,
    level,
    epoch: info.epoch,
    id: info.id,
    size: info.size,
    metaOffset: info.metaOffset,
    minKey: toHex(info.minKey),
    maxKey: toHex(info.maxKey),
    entries: info.entries,
    tombstones: info.tombstones,
    blocks: info.blocks,
    ...(info.fences !== undefined
      ? { fences: info.fences.map((f): [string, number] => [toHex(f.key), f.offset]) }
      : {}),
  };
}

/**
 * Most bytes of block fences (their JSON, `[[firstKeyHex, offset], ...]`) one manifest carries over all
 * its records. Fences cost ~300 bytes per full partition record, about as much as the rest of it, so
 * without a cap a manifest of ~100 partitions would pass the 64 KiB goal on fences alone; 16 KiB keeps
 * fences on the ~50 newest tables (docs/decisions/0185-verified-blocks.md). A record past the cap is
 * written without fences and reads the ordinary way (its metadata first, one round more when cold).
 */
export const MANIFEST_FENCE_BYTES_MAX = 16 * 1024;

/** JSON bytes of a record's fences (0 without any). */
export function fenceBytes(r: SortedTableRecord): number {
  const f = (r as { fences?: unknown }).fences;
  return f === undefined ? 0 : JSON.stringify(f).length;
}

/**
 * `records` (manifest order: L0 newest first, then runs newest first) with fences kept on the longest
 * prefix whose fences fit in `maxBytes` and dropped from every record after it: the newest tables, which
 * reads reach most and which are rewritten soonest, keep theirs, and which records have fences stays a
 * prefix, so it is easy to tell from a manifest.
 */
export function capFences(
  records: readonly SortedTableRecord[],
  maxBytes: number = MANIFEST_FENCE_BYTES_MAX,
): SortedTableRecord[] {
  let left = maxBytes;
  return records.map((r) => {
    const bytes = fenceBytes(r);
    if (bytes === 0) return r;
    if (bytes <= left) {
      left -= bytes;
      return r;
    }
    left = -1;
    const { fences: _, ...rest } = r as SortedTableRecord & { fences?: unknown };
    return rest as SortedTableRecord;
  });
}

/** Validates one manifest record of lake `lake`; Corruption names what is wrong. */
export function tableRef(lake: string, raw: SortedTableRecord): TableRef {
  const parsed = tableRecordSchema.safeParse(raw);
  const bad = (what: string): Corruption =>
    new Corruption(
      `manifest of lake ${lake} lists sorted table ${JSON.stringify(raw.key)} with ${what}; the manifest is damaged or from an incompatible writer`,
    );
  if (!parsed.success) throw bad(`invalid field ${parsed.error.issues[0]?.path.join(".") ?? "?"}`);
  const r = parsed.data;
  const parts = parseSstKey(r.key);
  if (parts === undefined || parts.lake !== lake || parts.epoch !== r.epoch || parts.id !== r.id) {
    throw bad("a key that does not match its lake, epoch and id");
  }
  const minKey = fromHex(r.minKey);
  const maxKey = fromHex(r.maxKey);
  const mergedBelow = r.mergedBelow === undefined ? undefined : fromHex(r.mergedBelow);
  if (minKey === undefined || maxKey === undefined) throw bad("malformed key bounds");
  if (r.level === LEVEL_L0 && r.run !== undefined) throw bad("a run number on an L0 table");
  if (r.mergeInto !== undefined && r.mergedBelow === undefined) throw bad("mergeInto without mergedBelow");
  const fences = r.fences?.map(([k, offset]): Fence => ({ key: fromHex(k) as Bytes, offset }));
  return { record: r, minKey, maxKey, mergedBelow, run: r.run ?? 0, fences };
}

/** Every record of a manifest, validated, split into L0 (newest first) and the run (key order). */
export function manifestTables(
  lake: string,
  records: readonly SortedTableRecord[],
): { l0: TableRef[]; run: TableRef[] } {
  const l0: TableRef[] = [];
  const run: TableRef[] = [];
  for (const raw of records) {
    const t = tableRef(lake, raw);
    (t.record.level === LEVEL_L0 ? l0 : run).push(t);
  }
  return { l0, run };
}

/** One sorted run: its number and its partitions in key order. */
export interface Run {
  id: number;
  parts: TableRef[];
  /** Sum of the partitions' object sizes. */
  bytes: number;
}

/** The run partitions of a manifest grouped into runs, NEWEST FIRST (highest number first). */
export function runsOf(parts: readonly TableRef[]): Run[] {
  const byId = new Map<number, TableRef[]>();
  for (const p of parts) {
    const list = byId.get(p.run);
    if (list === undefined) byId.set(p.run, [p]);
    else list.push(p);
  }
  return [...byId.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([id, list]) => ({
      id,
      parts: list.sort((a, b) => compareBytes(a.minKey, b.minKey)),
      bytes: list.reduce((s, p) => s + p.record.size, 0),
    }));
}

/** Corruption unless each run's partitions (in key order, as `runsOf` gives them) are disjoint. */
export function assertRunsDisjoint(lake: string, version: number, runs: readonly Run[]): void {
  for (const r of runs) {
    const sorted = r.parts;
    for (let i = 1; i < sorted.length; i++) {
      if (compareBytes(sorted[i - 1]!.maxKey, sorted[i]!.minKey) >= 0) {
        throw new Corruption(
          `manifest version ${version} of lake ${lake}: partitions ${sorted[i - 1]!.record.key} and ${sorted[i]!.record.key} of sorted run ${r.id} overlap`,
        );
      }
    }
  }
}

/** The run an unfinished compaction merges `t` into (records from before run numbers: run 0). */
export function mergeTarget(t: TableRef): number | undefined {
  if (t.mergedBelow === undefined) return undefined;
  return t.record.mergeInto ?? 0;
}
