/**
 * Partitions a run merge moves into its target instead of rewriting them
 * (docs/decisions/0186-partition-moves.md). A partition of a newer input run whose key range meets no
 * other input partition and no target partition holds, for every key in that range, the only version the
 * merge's layers have: merging would copy it byte for byte. Moving it — the same object, its record now
 * in the target run — keeps every read the same (the target is older than the inputs and newer than every
 * run below it, and nothing between holds those keys) and writes nothing. Append-only key ranges (a log
 * whose keys only grow) become such partitions once the host names their bounds as partition cuts
 * (`WriterOptions.partitionCuts`), so their bytes stop being rewritten as they climb the tiers.
 */
import type { Bytes } from "../api.ts";
import { compareBytes } from "../bytes.ts";
import type { TableRecord, TableRef } from "../table-record.ts";
import type { CompactionPlan } from "./plan.ts";

/**
 * Smallest partition moved, as a fraction of `partitionBytes`. Smaller ones are merged as before, so the
 * merge's partition writer packs several of them into one: a run does not fill with tiny objects (each
 * one a metadata GET for a cold reader and a record in the manifest).
 */
export const MOVE_MIN_FRACTION = 1 / 4;

const overlaps = (a: TableRef, b: TableRef): boolean =>
  compareBytes(a.minKey, b.maxKey) <= 0 && compareBytes(b.minKey, a.maxKey) <= 0;

/**
 * The input partitions of a run merge that can move, in key order. None for an L0 merge (L0 tables overlap
 * each other). A partition a resumed merge has already passed (`from`) or half merged (`mergedBelow`
 * inside it) is not one of them.
 */
export function movablePartitions(
  plan: CompactionPlan,
  from: Bytes | undefined,
  partitionBytes: number,
): TableRef[] {
  if (plan.kind !== "runs") return [];
  const inputs = plan.inputRuns.flatMap((r) => r.parts);
  const everything = [...inputs, ...plan.target.parts];
  const out = inputs.filter(
    (p) =>
      p.record.size >= partitionBytes * MOVE_MIN_FRACTION &&
      (from === undefined || compareBytes(p.minKey, from) >= 0) &&
      (p.mergedBelow === undefined || compareBytes(p.mergedBelow, p.minKey) <= 0) &&
      everything.every((q) => q === p || !overlaps(p, q)),
  );
  return out.sort((a, b) => compareBytes(a.minKey, b.minKey));
}

/** `t`'s record as a partition of run `run`, with no unfinished-merge marks (run 0 is written absent). */
export function movedRecord(t: TableRef, run: number): TableRecord {
  const { run: _run, mergedBelow: _below, mergeInto: _into, ...rest } = t.record;
  return run > 0 ? { ...rest, run } : rest;
}
