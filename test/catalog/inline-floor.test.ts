/**
 * The row-id floor of a table's inlined rows (docs/decisions/0182-inlined-row-floor.md): scans of a
 * table's inlined rows start at it, so the tombstones of rows earlier flushes removed are not stepped over
 * again; every writer lowers it, the flush raises it, and the commit refuses a row staged below it.
 * Counts store entries (tombstones included), never times.
 */
import { describe, expect, it } from "vitest";
import { decodeValue, encodeValue, ValueKind } from "../../catalog/codec.ts";
import { stageMember } from "../../catalog/commit/member.ts";
import { type CommitRequest, type SelfStagedMember, tableFilesAt } from "../../catalog/index.ts";
import { checkInlineFloors, inlineFloorOf, readInlineFloor } from "../../catalog/inline-floor.ts";
import { keys } from "../../catalog/keys.ts";
import { planFlushes } from "../../catalog/maintenance/inline-flush-plan.ts";
import { visibleAt } from "../../catalog/reads/versions.ts";
import type { InlineRowRecord, TableMetaRecord } from "../../catalog/records.ts";
import { Staging } from "../../catalog/staging.ts";
import type { StoredValue } from "../../catalog/values/index.ts";
import { inlineInsertPreserving } from "../../catalog/verbs/ops/inline.ts";
import type { ReadView } from "../../storage/api.ts";
import { seeded } from "../../storage/fault-bucket.ts";
import {
  commit,
  flushJob,
  freshLake,
  ID_S_COLUMNS,
  idRow,
  type Lake,
  type Rows,
  rowsAt,
} from "../maintenance/lake.ts";
import { countEntries } from "../support/entry-counter.ts";
import { settle } from "./support.ts";

const COLUMNS = ID_S_COLUMNS;
const row = idRow;

async function tableId(l: Lake): Promise<number> {
  return (await tableFilesAt(l.store.snapshot(), { name: "t" })).table.table_id;
}

/** A member that stages DuckLake's UPDATE of `rowIds`: their old versions deleted, new ones under the same ids. */
function update(
  t: number,
  deletes: CommitRequest["verbs"],
  rows: { rowId: number; row: Record<string, unknown> }[],
): SelfStagedMember {
  return {
    kind: "staged-rows",
    stage: (group, premise, env) =>
      stageMember(group, premise, env, { verbs: deletes }, (ctx) => inlineInsertPreserving(ctx, t, rows)),
  };
}

/** Every key under the table's inlined-row prefix, read from the prefix start (what the floor must not hide). */
async function wholePrefix(view: ReadView, t: number): Promise<InlineRowRecord[]> {
  const out: InlineRowRecord[] = [];
  for await (const kv of view.scan({ prefix: keys.inlineRowPrefix(t) }))
    out.push(decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row"));
  return out;
}

describe("inlined-row floor: scans step over a bounded number of entries", () => {
  /** N cycles of 12 inlined rows and a flush, then 12 rows more: the entries each read steps over. */
  async function afterFlushes(n: number) {
    const l = await freshLake(`floor-count-${n}`);
    await commit(l, [{ op: "create_table", name: "t", columns: COLUMNS }]);
    let next = 0;
    const insert = (k: number) =>
      commit(l, [
        { op: "inline_insert", table: { name: "t" }, rows: Array.from({ length: k }, () => row(next++)) },
      ]);
    for (let i = 0; i < n; i++) {
      await insert(12);
      expect((await flushJob(l)).map((r) => [r.error, r.rowsIn])).toEqual([[null, 12]]);
    }
    await insert(12);
    const t = await tableId(l);
    const prefix = keys.inlineRowPrefix(t);
    const view = l.store.snapshot();
    const plan = await countEntries(prefix, () => planFlushes(view));
    const files = await countEntries(prefix, () => tableFilesAt(view, { name: "t" }));
    const one = await countEntries(prefix, () => insert(1));
    const flush = await countEntries(prefix, () => flushJob(l));
    expect(plan.value.plans.map((p) => p.rowsIn)).toEqual([12]);
    expect(files.value.inlined_rows).toHaveLength(12);
    expect(flush.value.map((r) => [r.error, r.rowsIn])).toEqual([[null, 13]]);
    const floor = await readInlineFloor(l.store.snapshot(), t);
    return { plan: plan.entries, files: files.entries, insert: one.entries, flush: flush.entries, floor, n };
  }

  it("after 8 flushes a flush plan, a scan plan, an insert and a flush step over what they do after 1", async () => {
    const one = await afterFlushes(1);
    const eight = await afterFlushes(8);
    expect(one.floor).toBe(12 + 13);
    expect(eight.floor).toBe(8 * 12 + 13);
    // The live rows only: 12 for the scan plan; 96 tombstones more after 8 flushes without the floor.
    expect(eight.files).toBe(12);
    expect({ ...eight, floor: 0, n: 0 }).toEqual({ ...one, floor: 0, n: 0 });
  });
});

describe("inlined-row floor: writers lower it, flushes raise it, the commit checks it", () => {
  it("an update of a flushed row lowers the floor to its row id; the next flush lifts it past every flushed row", async () => {
    const l = await freshLake("floor-update");
    await commit(l, [{ op: "create_table", name: "t", columns: COLUMNS }]);
    await commit(l, [
      { op: "inline_insert", table: { name: "t" }, rows: Array.from({ length: 12 }, (_, i) => row(i)) },
    ]);
    expect((await flushJob(l)).map((r) => r.error)).toEqual([null]);
    const t = await tableId(l);
    expect(await readInlineFloor(l.store.snapshot(), t)).toBe(12);
    const file = (await tableFilesAt(l.store.snapshot(), { name: "t" })).files[0];
    if (!file) throw new Error("the flush registered no file");
    // DuckLake's UPDATE of row 3: its file position deleted, its new version inlined under row id 3.
    const out = await l.catalog.commitGroup([
      update(
        t,
        [
          {
            op: "inline_delete",
            table: { name: "t" },
            fileDeletes: [{ dataFileId: file.data_file_id, positions: [3 - file.row_id_start] }],
          },
        ],
        [{ rowId: 3, row: row(3, "u") }],
      ),
    ]);
    await settle(l.store, out.durable);
    expect(out.results.map((r) => r.ok)).toEqual([true]);
    expect(await readInlineFloor(l.store.snapshot(), t)).toBe(3);
    const plan = await tableFilesAt(l.store.snapshot(), { name: "t" });
    expect(plan.inlined_rows.map((r) => [r.row_id, r.values.s])).toEqual([[3, "u3"]]);
    // Flushing row 3 again clears rows 3..11's range: the floor goes back above every flushed row.
    expect((await flushJob(l, { threshold: 0 })).map((r) => [r.error, r.rowsIn])).toEqual([[null, 1]]);
    expect(await readInlineFloor(l.store.snapshot(), t)).toBe(4);
    await commit(l, [{ op: "inline_insert", table: { name: "t" }, rows: [row(12)] }]);
    expect((await flushJob(l, { threshold: 0 })).map((r) => [r.error, r.rowsIn])).toEqual([[null, 1]]);
    expect(await readInlineFloor(l.store.snapshot(), t)).toBe(13);
  });

  it("refuses a member that stages an inlined row below the floor, and only that member", async () => {
    const l = await freshLake("floor-check");
    await commit(l, [{ op: "create_table", name: "t", columns: COLUMNS }]);
    await commit(l, [
      { op: "inline_insert", table: { name: "t" }, rows: Array.from({ length: 12 }, (_, i) => row(i)) },
    ]);
    expect((await flushJob(l)).map((r) => r.error)).toEqual([null]);
    const t = await tableId(l);
    const record: InlineRowRecord = {
      row_id: 5,
      begin_snapshot: 0,
      end_snapshot: null,
      schema_version: 1,
      values: {},
    };
    // A writer that bypasses writeInlinedRows: its row would be invisible to every scan from the floor.
    const bypass: SelfStagedMember = {
      kind: "staged-rows",
      stage: async (group, premise) => {
        const layer = group.child();
        layer.put(
          keys.inlineRow(t, 5),
          encodeValue(ValueKind.inlineRow, { ...record, begin_snapshot: premise.snapshot_id + 1 }),
        );
        return {
          layer,
          ctx: undefined,
          result: { snapshotId: null, schemaVersion: premise.schema_version, assigned: [] },
          snapshot: null,
        };
      },
    };
    const out = await l.catalog.commitGroup([
      { verbs: [{ op: "inline_insert", table: { name: "t" }, rows: [row(12)] }] },
      bypass,
    ]);
    await settle(l.store, out.durable);
    expect(out.results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["ok", "InlineFloorViolation"]);
    expect((await wholePrefix(l.store.snapshot(), t)).map((r) => r.row_id)).toEqual([12]);
    // The check on its own, over a layer: at the floor passes, below it refuses.
    const layer = Staging.over(l.store.snapshot()).child();
    layer.put(keys.inlineRow(t, 12), encodeValue(ValueKind.inlineRow, { ...record, row_id: 12 }));
    await checkInlineFloors(layer);
    layer.put(keys.inlineRowVersion(t, 11, 2), encodeValue(ValueKind.inlineRow, { ...record, row_id: 11 }));
    await expect(checkInlineFloors(layer)).rejects.toMatchObject({ code: "InlineFloorViolation" });
  });

  it("a lake without the field reads floor 0", async () => {
    expect(inlineFloorOf(undefined)).toBe(0);
    expect(inlineFloorOf({ table_id: 1, next_column_id: 2 } satisfies TableMetaRecord)).toBe(0);
  });
});

describe("inlined-row floor: random histories read the same rows", () => {
  /**
   * Seeded random inserts, deletes (inlined rows and file positions), updates of flushed rows (which keep
   * their row ids, below the floor), updates of still-inlined rows (their old versions flushed with them,
   * decision 0183), and flushes of random size; after every step every snapshot's rows
   * (files and inlined rows, by DuckLake's reader rules) equal a model's, the inlined rows a scan plan
   * reads equal the whole prefix's at every snapshot, and no key lies below the floor.
   */
  async function history(
    seed: number,
    steps: number,
  ): Promise<{ floorRose: boolean; lowered: boolean; updatedInlined: boolean }> {
    const rnd = seeded(seed);
    const pick = (n: number) => Math.floor(rnd() * n);
    const l = await freshLake(`floor-model-${seed}`);
    await commit(l, [{ op: "create_table", name: "t", columns: COLUMNS }]);
    const t = await tableId(l);
    /** Live rows by row id, and where each lives: inlined, or a position of a data file. */
    const live = new Map<number, { values: Record<string, StoredValue>; at: "inline" | [number, number] }>();
    const model = new Map<number, Rows>();
    const record = (s: number | null) => {
      if (s !== null) model.set(s, new Map([...live].map(([id, r]) => [id, r.values])));
    };
    let next = 0;
    let floorRose = false;
    let lowered = false;
    let updatedInlined = false;
    for (let step = 0; step < steps; step++) {
      const r = rnd();
      const rows = [...live.entries()];
      const inlined = rows.filter(([, x]) => x.at === "inline");
      const filed = rows.filter(([, x]) => x.at !== "inline");
      if (r < 0.35 || rows.length === 0) {
        const k = 1 + pick(4);
        const values = Array.from({ length: k }, () => row(next++));
        const s = await commit(l, [{ op: "inline_insert", table: { name: "t" }, rows: values }]);
        values.forEach((v) => {
          live.set(Number(v.id), { values: v, at: "inline" });
        });
        record(s);
      } else if (r < 0.5 && inlined.length > 0) {
        const [id] = inlined[pick(inlined.length)] as [number, unknown];
        const s = await commit(l, [{ op: "inline_delete", table: { name: "t" }, rowIds: [id] }]);
        live.delete(id);
        record(s);
      } else if (r < 0.6 && filed.length > 0) {
        const [id, x] = filed[pick(filed.length)] as [number, { at: [number, number] }];
        const s = await commit(l, [
          {
            op: "inline_delete",
            table: { name: "t" },
            fileDeletes: [{ dataFileId: x.at[0], positions: [x.at[1]] }],
          },
        ]);
        live.delete(id);
        record(s);
      } else if (r < 0.75 && filed.length > 0) {
        const [id, x] = filed[pick(filed.length)] as [number, { at: [number, number] }];
        const before = await readInlineFloor(l.store.snapshot(), t);
        const values = row(id, `u${step}-`);
        const out = await l.catalog.commitGroup([
          update(
            t,
            [
              {
                op: "inline_delete",
                table: { name: "t" },
                fileDeletes: [{ dataFileId: x.at[0], positions: [x.at[1]] }],
              },
            ],
            [{ rowId: id, row: values }],
          ),
        ]);
        await settle(l.store, out.durable);
        const res = out.results[0];
        if (!res?.ok) throw new Error(`update of row ${id} failed: ${res?.error.message}`);
        if (id < before) lowered = true;
        live.set(id, { values, at: "inline" });
        record(res.value.snapshotId);
      } else if (r < 0.82 && inlined.length > 0) {
        // An update of a still-inlined row (decision 0183): same row id, the old version kept as a version key.
        const [id] = inlined[pick(inlined.length)] as [number, unknown];
        const values = row(id, `i${step}-`);
        const out = await l.catalog.commitGroup([
          update(
            t,
            [{ op: "inline_delete", table: { name: "t" }, rowIds: [id] }],
            [{ rowId: id, row: values }],
          ),
        ]);
        await settle(l.store, out.durable);
        const res = out.results[0];
        if (!res?.ok) throw new Error(`inline update of row ${id} failed: ${res?.error.message}`);
        updatedInlined = true;
        live.set(id, { values, at: "inline" });
        record(res.value.snapshotId);
      } else {
        const before = await readInlineFloor(l.store.snapshot(), t);
        const keysBefore = await wholePrefix(l.store.snapshot(), t);
        const runs = await flushJob(l, { threshold: pick(3), maxRowsPerStep: 1 + pick(6) });
        for (const run of runs) if (run.error !== null) throw new Error(`flush failed: ${run.error}`);
        const plan = await tableFilesAt(l.store.snapshot(), { name: "t" });
        const file = plan.files.reduce(
          (a, b) => (b.data_file_id > (a?.data_file_id ?? -1) ? b : a),
          plan.files[0],
        );
        // The flush took a prefix of the keys from the floor, whole rows; the file holds them row by row,
        // each row's versions by begin snapshot, so a live row's position is its live version's index.
        const flushed = keysBefore
          .slice(0, keysBefore.length - (await wholePrefix(l.store.snapshot(), t)).length)
          .sort((a, b) => a.row_id - b.row_id || a.begin_snapshot - b.begin_snapshot);
        if (runs.length > 0 && file) {
          expect(flushed.length, `flushed keys (seed ${seed}, step ${step})`).toBe(runs[0]?.rowsIn);
          flushed.forEach((x, pos) => {
            const v = live.get(x.row_id);
            if (x.end_snapshot === null && v)
              live.set(x.row_id, { values: v.values, at: [file.data_file_id, pos] });
          });
        }
        for (const run of runs) record(run.snapshotId);
        if ((await readInlineFloor(l.store.snapshot(), t)) > before) floorRose = true;
      }
      const view = l.store.snapshot();
      const floor = await readInlineFloor(view, t);
      const all = await wholePrefix(view, t);
      expect(
        all.every((x) => x.row_id >= floor),
        `a key below floor ${floor} (seed ${seed}, step ${step})`,
      ).toBe(true);
      expect((await tableFilesAt(view, { name: "t" })).inlined_rows.map((x) => x.row_id)).toEqual(
        all.filter((x) => x.end_snapshot === null).map((x) => x.row_id),
      );
      // Every snapshot's rows are read every few steps and at the end (each read opens the Parquet files).
      if (step % 6 !== 5 && step !== steps - 1) continue;
      for (const [s, expected] of model) {
        const plan = await tableFilesAt(view, { name: "t" }, s);
        expect(
          plan.inlined_rows.map((x) => x.row_id),
          `inlined rows at ${s} (seed ${seed}, step ${step})`,
        ).toEqual(all.filter((x) => visibleAt(x, s)).map((x) => x.row_id));
        expect(await rowsAt(l, s), `rows at ${s} (seed ${seed}, step ${step})`).toEqual(expected);
      }
    }
    return { floorRose, lowered, updatedInlined };
  }

  it("agree with a model at every snapshot, the floor rising and falling on the way", async () => {
    const outcomes = [];
    for (const seed of [1, 2, 3, 4, 5]) outcomes.push(await history(seed, 40));
    // The histories exercise both directions (else the test would prove nothing about the floor).
    expect(outcomes.some((o) => o.floorRose)).toBe(true);
    expect(outcomes.some((o) => o.lowered)).toBe(true);
    expect(outcomes.some((o) => o.updatedInlined)).toBe(true);
  });
});
