/**
 * The flush of a table whose inlined row was updated while still inlined
 * (docs/decisions/0183-flush-row-versions.md): the UPDATE keeps the row id, its earlier version moves to
 * `keys.inlineRowVersion`, and the maintenance flush moves both versions into the file (the earlier one
 * marked deleted at its end snapshot), so the plan and the verb agree on the keys and time travel to a
 * snapshot before the update still reads the earlier value. Real store on the miniflare bucket; counts,
 * never times.
 */
import { describe, expect, it } from "vitest";
import { stageMember } from "../../catalog/commit/member.ts";
import { type SelfStagedMember, tableFilesAt } from "../../catalog/index.ts";
import { planFlushes } from "../../catalog/maintenance/inline-flush-plan.ts";
import { inlineInsertPreserving } from "../../catalog/verbs/ops/inline.ts";
import { readParquet } from "../../parquet/index.ts";
import {
  commit,
  DATA_PREFIX,
  everySnapshot,
  flushJob,
  freshLake,
  ID_S_COLUMNS,
  idRow,
  type Lake,
  rowsAt,
} from "../maintenance/lake.ts";
import { settle } from "./support.ts";

const COLUMNS = ID_S_COLUMNS;
const row = idRow;

/** DuckLake's UPDATE of a still-inlined row: the old version ended, the new one inlined under the same id. */
async function updateInlined(l: Lake, rowId: number, tag: string): Promise<number> {
  const t = (await tableFilesAt(l.store.snapshot(), { name: "t" })).table.table_id;
  const member: SelfStagedMember = {
    kind: "staged-rows",
    stage: (group, premise, env) =>
      stageMember(
        group,
        premise,
        env,
        { verbs: [{ op: "inline_delete", table: { name: "t" }, rowIds: [rowId] }] },
        (ctx) => inlineInsertPreserving(ctx, t, [{ rowId, row: row(rowId, tag) }]),
      ),
  };
  const out = await l.catalog.commitGroup([member]);
  await settle(l.store, out.durable);
  const res = out.results[0];
  if (!res?.ok) throw new Error(`update of row ${rowId} failed: ${res?.error.message}`);
  return res.value.snapshotId as number;
}

async function objectRows(l: Lake, resolved: string): Promise<Record<string, unknown>[]> {
  const obj = await l.b.get(`lakes/${resolved.slice(DATA_PREFIX.length)}`);
  if (!obj) throw new Error(`missing object ${resolved}`);
  return (await readParquet(new Uint8Array(await obj.arrayBuffer()))).rows;
}

async function lakeWithRows(tag: string, n: number): Promise<Lake> {
  const l = await freshLake(tag);
  await commit(l, [{ op: "create_table", name: "t", columns: COLUMNS }]);
  await commit(l, [
    { op: "inline_insert", table: { name: "t" }, rows: Array.from({ length: n }, (_, i) => row(i)) },
  ]);
  return l;
}

describe("flush of inlined rows updated while inlined", () => {
  it("flushes both versions of an updated row, and time travel before the update reads the old value", async () => {
    const l = await lakeWithRows("versions-flush", 12);
    const beforeUpdate = (await tableFilesAt(l.store.snapshot(), { name: "t" })).snapshot_id;
    const updated = await updateInlined(l, 5, "u");
    // The plan covers 13 keys through row 11: 12 rows, row 5 twice (its old version, then its new one).
    const { plans, refused } = await planFlushes(l.store.snapshot());
    expect(refused).toEqual([]);
    const verb = plans[0]?.request.verbs[0];
    expect(verb?.op === "flush_inlined" && [verb.throughRowId, verb.file?.recordCount]).toEqual([11, 13]);
    const before = await everySnapshot(l);
    expect(before.get(beforeUpdate)?.get(5)).toEqual(row(5));
    expect(before.get(updated)?.get(5)).toEqual(row(5, "u"));
    const runs = await flushJob(l);
    // Data file and the delete file that ends row 5's old version.
    expect(runs.map((r) => [r.error, r.rowsIn, r.filesOut])).toEqual([[null, 13, 2]]);
    const after = await everySnapshot(l);
    for (const [s, rows] of before) expect([s, after.get(s)]).toEqual([s, rows]);
    expect(await rowsAt(l, runs[0]?.snapshotId ?? -1)).toEqual(before.get(updated));
    const plan = await tableFilesAt(l.store.snapshot(), { name: "t" });
    expect(plan.inlined_rows).toEqual([]);
    expect(plan.files.map((f) => f.record_count)).toEqual([13]);
    // Stock DuckLake's layout (tools/maintenance/flush-versions.py): row by row, each row's versions by
    // begin snapshot, and the old version's position deleted at the update's snapshot.
    const file = plan.files[0];
    if (!file?.delete_file) throw new Error("the flush registered no delete file");
    const inserted = beforeUpdate;
    expect(
      (await objectRows(l, file.resolved_path)).map((r) => [
        Number(r._ducklake_internal_row_id),
        r.s,
        Number(r._ducklake_internal_snapshot_id),
      ]),
    ).toEqual(
      Array.from({ length: 12 }, (_, i) => i).flatMap((i) =>
        i === 5
          ? [
              [5, "a5", inserted],
              [5, "u5", updated],
            ]
          : [[i, `a${i}`, inserted]],
      ),
    );
    expect(
      (await objectRows(l, file.delete_file.resolved_path)).map((r) => [
        Number(r.pos),
        Number(r._ducklake_internal_snapshot_id),
      ]),
    ).toEqual([[5, updated]]);
    expect(await flushJob(l)).toEqual([]);
  });

  it("never splits a row's versions between steps; a row with more versions than a step holds goes whole", async () => {
    const l = await lakeWithRows("versions-steps", 10);
    const snaps = [
      await updateInlined(l, 0, "u"),
      await updateInlined(l, 0, "v"),
      await updateInlined(l, 0, "w"),
    ];
    snaps.push(await updateInlined(l, 4, "u"));
    const before = await everySnapshot(l);
    const steps: (number | string | null)[][] = [];
    for (let i = 0; i < 6; i++) {
      const runs = await flushJob(l, { threshold: 0, maxRowsPerStep: 3 });
      if (runs.length === 0) break;
      steps.push(...runs.map((r) => [r.error, r.rowsIn]));
    }
    // Row 0's four versions pass the step's 3 and go whole; rows 1–3 fill the next; row 4's two versions
    // would make it 5, so they start the next step, with row 5; then 6–8; then 9.
    expect(steps).toEqual([
      [null, 4],
      [null, 3],
      [null, 3],
      [null, 3],
      [null, 1],
    ]);
    const after = await everySnapshot(l);
    for (const [s, rows] of before) expect([s, after.get(s)]).toEqual([s, rows]);
    expect(before.get(snaps[0] as number)?.get(0)).toEqual(row(0, "u"));
    expect((await tableFilesAt(l.store.snapshot(), { name: "t" })).inlined_rows).toEqual([]);
  });

  it("plans nothing while the floor's row predates the newest columns, rather than a run the verb refuses", async () => {
    const l = await lakeWithRows("versions-shape", 12);
    await commit(l, [{ op: "add_column", table: { name: "t" }, column: { name: "z", type: "int32" } }]);
    await commit(l, [
      {
        op: "inline_insert",
        table: { name: "t" },
        rows: Array.from({ length: 12 }, (_, i) => ({ ...row(12 + i), z: i })),
      },
    ]);
    // The old-shape rows sit at the floor: a run may not skip them (the verb covers every key from the
    // floor), so the table stays inlined until a flush under their own schema version (decision 0321).
    expect(await planFlushes(l.store.snapshot())).toEqual({ plans: [], refused: [] });
    expect(await flushJob(l)).toEqual([]);
    expect((await tableFilesAt(l.store.snapshot(), { name: "t" })).inlined_rows).toHaveLength(24);
  });
});
