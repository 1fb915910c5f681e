/**
 * The name maps of a server-side commit (`ducklake_staged_name_map` and `ducklake_staged_name_map_entry`,
 * written by `ducklake_add_data_files`): each map under its transaction-local id with its entry tree, as
 * DuckLake's `ReadStagedNameMaps` rebuilds it, and a staged data file's `mapping_id` as either one of them
 * or a name map the lake already holds (docs/decisions/0600-staged-name-maps.md).
 */
import { InvalidRequest } from "../../errors.ts";
import type { NameMapEntry } from "../../verbs/ops/name-maps.ts";
import type { Literal } from "./parse.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";

/** DuckLake's first transaction-local id (`DuckLakeConstants::TRANSACTION_LOCAL_ID_START`, 2^63). */
export const TRANSACTION_LOCAL_ID_START = 1n << 63n;

export interface StagedNameMap {
  /** The transaction-local id the staged data files name it by. */
  localId: bigint;
  tableId: number;
  roots: NameMapEntry[];
}

/** A staged data file's mapping: none, a map staged with it (by local id), or a committed one. */
export type FileMapping =
  | { kind: "none" }
  | { kind: "staged"; localId: bigint }
  | { kind: "committed"; id: number };

function bad(detail: string): InvalidRequest {
  return new InvalidRequest(`staged name map: ${detail}`);
}

function ubig(l: Literal | undefined, what: string): bigint {
  if (l?.k !== "num" || !/^[0-9]+$/.test(l.text)) throw bad(`${what} is not an unsigned integer`);
  return BigInt(l.text);
}
function id(l: Literal | undefined, what: string): number {
  const n = l?.k === "num" && /^[0-9]+$/.test(l.text) ? Number(l.text) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw bad(`${what} is not an id`);
  return n;
}

/**
 * The staged maps in DuckLake's order (its name-map set is keyed by local id, ascending): the order their
 * ids are taken from `next_file_id` at commit. Entries hang under their parent in staged order; an entry of
 * no staged map, or under no staged entry, is not a shape DuckLake writes and is refused.
 */
export function stagedNameMaps(batch: StagedBatch): StagedNameMap[] {
  const byMap = new Map<bigint, StagedRow[]>();
  for (const e of batch.rows.name_map_entry) {
    const m = ubig(e.map_id, "name_map_entry.map_id");
    byMap.set(m, [...(byMap.get(m) ?? []), e]);
  }
  const maps: StagedNameMap[] = [];
  const seen = new Set<bigint>();
  for (const h of batch.rows.name_map) {
    const localId = ubig(h.map_id, "name_map.map_id");
    if (seen.has(localId)) throw bad(`map ${localId} is staged twice`);
    seen.add(localId);
    maps.push({
      localId,
      tableId: id(h.table_id, "name_map.table_id"),
      roots: tree(localId, byMap.get(localId) ?? []),
    });
  }
  for (const m of byMap.keys()) if (!seen.has(m)) throw bad(`entries name map ${m}, which is not staged`);
  return maps.sort((a, b) => (a.localId < b.localId ? -1 : a.localId > b.localId ? 1 : 0));
}

function tree(map: bigint, rows: readonly StagedRow[]): NameMapEntry[] {
  const entries = new Map<number, NameMapEntry>();
  const parents: [number, number | null][] = [];
  for (const r of rows) {
    const e = id(r.entry_id, "entry_id");
    if (entries.has(e)) throw bad(`map ${map} stages entry ${e} twice`);
    const source = r.source_name;
    if (source?.k !== "str") throw bad(`map ${map} entry ${e} has no source_name`);
    entries.set(e, {
      sourceName: source.v,
      targetFieldId: id(r.target_field_id, "target_field_id"),
      // DuckLake reads a NULL hive_partition as false.
      hivePartition: r.hive_partition?.k === "bool" && r.hive_partition.v,
      children: [],
    });
    parents.push([e, r.parent_entry_id?.k === "null" ? null : id(r.parent_entry_id, "parent_entry_id")]);
  }
  const roots: NameMapEntry[] = [];
  for (const [e, p] of parents) {
    const entry = entries.get(e) as NameMapEntry;
    if (p === null) roots.push(entry);
    else {
      const parent = entries.get(p);
      if (parent === undefined || p === e)
        throw bad(`map ${map} entry ${e} hangs under entry ${p}, not staged`);
      parent.children.push(entry);
    }
  }
  // Every entry must hang from a root: a cycle would be dropped silently by a walk from the roots.
  let reached = 0;
  const walk = (e: NameMapEntry): void => {
    reached++;
    for (const c of e.children) walk(c);
  };
  for (const r of roots) walk(r);
  if (reached !== entries.size) throw bad(`map ${map}'s entries form a cycle`);
  return roots;
}

/** A staged data file's `mapping_id` (UBIGINT: a local id is 2^63 or above). */
export function fileMapping(l: Literal | undefined): FileMapping {
  if (l === undefined || l.k === "null") return { kind: "none" };
  const v = ubig(l, "data_file.mapping_id");
  if (v >= TRANSACTION_LOCAL_ID_START) return { kind: "staged", localId: v };
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw bad(`mapping_id ${v} is out of range`);
  return { kind: "committed", id: Number(v) };
}
