/**
 * DuckLake rules verified against a stock DuckLake 1.5.5 (see tools/ducklake-golden.py and the probes
 * named in each test): the flush's merge of inlined file deletes, delete files leaving inlined deletes in
 * place, `require_commit_message`, compaction alone in its commit — plus the refusal paths for altering
 * a nested column's type and a schema drop racing a create inside it.
 */
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  type CommitRequest,
  ducklakeTable,
  inlinedTablesAt,
  openCatalog,
  tableFilesAt,
  type Verb,
} from "../../catalog/index.ts";
import type { Store } from "../../storage/api.ts";
import { fresh, racing, settle } from "./support.ts";

const T = { name: "t" };
const twoCols = [
  { name: "id", type: "int32" },
  { name: "s", type: "varchar" },
];
const del = (path: string, deleteCount: number) => ({ path, deleteCount, fileSizeBytes: 100 });

async function commit(store: Store, catalog: Catalog, req: CommitRequest): Promise<number> {
  const out = await catalog.commit(req);
  await settle(store, out.durable);
  return out.snapshotId ?? -1;
}

/** The positions of data file `fileId` that a reader at snapshot `s` must skip. */
async function deletedAt(
  store: Store,
  fileId: number,
  s: number,
): Promise<{ file: string | null; inlined: number[] }> {
  const plan = await tableFilesAt(store.snapshot(), T, s);
  const f = plan.files.find((x) => x.data_file_id === fileId);
  return { file: f?.delete_file?.path ?? null, inlined: f?.inlined_deleted_positions ?? [] };
}

describe("inlined file deletes and delete files", () => {
  it("register_delete_file leaves the file's inlined deletes in place; a reader applies both", async () => {
    // DuckLake 1.5.5: DELETE of 20 rows after an inlined delete of 1 writes a delete file of 20 and keeps
    // the inlined delete (golden deletes.json, step 3) — the delete file does not absorb it.
    const { store, catalog } = await fresh("keep-inlined");
    await commit(store, catalog, { verbs: [{ op: "create_table", name: "t", columns: twoCols }] });
    await commit(store, catalog, {
      verbs: [
        {
          op: "register_data_file",
          table: T,
          file: { path: "a.parquet", recordCount: 30, fileSizeBytes: 1 },
        },
      ],
    });
    await commit(store, catalog, {
      verbs: [{ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 0, positions: [2] }] }],
    });
    const s = await commit(store, catalog, {
      verbs: [{ op: "register_delete_file", table: T, dataFileId: 0, file: del("d20.parquet", 20) }],
    });
    expect(await deletedAt(store, 0, s)).toEqual({ file: "d20.parquet", inlined: [2] });
    expect((await inlinedTablesAt(store.snapshot())).ducklake_inlined_delete_1?.rows).toEqual([
      { file_id: 0, row_id: 2, begin_snapshot: 3 },
    ]);
  });

  it("flush_inlined merges a file's inlined deletes with its live delete file into one that replaces it", async () => {
    const { store, catalog } = await fresh("merge-deletes");
    await commit(store, catalog, { verbs: [{ op: "create_table", name: "t", columns: twoCols }] });
    await commit(store, catalog, {
      verbs: [
        {
          op: "register_data_file",
          table: T,
          file: { path: "a.parquet", recordCount: 30, fileSizeBytes: 1 },
        },
      ],
    }); // 2
    await commit(store, catalog, {
      verbs: [{ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 0, positions: [2] }] }],
    }); // 3
    await commit(store, catalog, {
      verbs: [{ op: "register_delete_file", table: T, dataFileId: 0, file: del("d20.parquet", 20) }],
    }); // 4
    await commit(store, catalog, {
      verbs: [{ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 0, positions: [3] }] }],
    }); // 5
    // The merged file must hold every delete: 20 from the file + 2 inlined.
    await expect(
      catalog.commit({
        verbs: [
          { op: "flush_inlined", table: T, fileDeletes: [{ dataFileId: 0, file: del("m.parquet", 21) }] },
        ],
      }),
    ).rejects.toMatchObject({ code: "InvalidRequest" });
    const flush = await catalog.commit({
      verbs: [
        { op: "flush_inlined", table: T, fileDeletes: [{ dataFileId: 0, file: del("m.parquet", 22) }] },
      ],
    });
    await settle(store, flush.durable);
    expect(flush.snapshotId).toBe(6);
    expect(flush.assigned).toEqual([{ mergedDeleteFileIds: [2] }]);
    const view = store.snapshot();
    // Begun at the oldest merged delete (3), partial_max the newest (5): DuckLake's flush (golden deletes.json).
    expect(await ducklakeTable(view, "ducklake_delete_file")).toMatchObject([
      { delete_file_id: 1, begin_snapshot: 4, end_snapshot: 6, path: "d20.parquet", partial_max: null },
      {
        delete_file_id: 2,
        begin_snapshot: 3,
        end_snapshot: null,
        path: "m.parquet",
        delete_count: 22,
        partial_max: 5,
      },
    ]);
    expect((await ducklakeTable(view, "ducklake_snapshot_changes"))[6]?.changes_made).toBe(
      "deleted_from_table:1",
    );
    expect((await inlinedTablesAt(view)).ducklake_inlined_delete_1?.rows).toEqual([]);
    // Every snapshot still reads the right deletes: the merged file, filtered to the snapshot read.
    expect(await deletedAt(store, 0, 2)).toEqual({ file: null, inlined: [] });
    expect(await deletedAt(store, 0, 6)).toEqual({ file: "m.parquet", inlined: [] });
    const plan3 = await tableFilesAt(view, T, 3);
    expect(plan3.files[0]?.delete_file).toMatchObject({ path: "m.parquet", snapshot_filter: 3 });
    // A second merge finds nothing left to merge.
    await expect(
      catalog.commit({
        verbs: [
          { op: "flush_inlined", table: T, fileDeletes: [{ dataFileId: 0, file: del("m2.parquet", 22) }] },
        ],
      }),
    ).rejects.toMatchObject({ code: "NotFound" });
  });
});

describe("commit policies DuckLake enforces", () => {
  it("require_commit_message refuses a snapshot without a message; options and messaged commits pass", async () => {
    // DuckLake 1.5.5 refuses with "Commit Information for the snapshot is required" (probed).
    const { store, catalog } = await fresh("require-message");
    await commit(store, catalog, {
      verbs: [{ op: "set_option", name: "require_commit_message", value: "true" }],
    });
    const refused = catalog.commit({ verbs: [{ op: "create_table", name: "t", columns: twoCols }] });
    await expect(refused).rejects.toMatchObject({ code: "Constraint" });
    await expect(refused).rejects.toThrow(/requires a commit message/);
    // Options mint no snapshot, so they need no message (DuckLake's set_option commits none either).
    await commit(store, catalog, {
      verbs: [{ op: "set_option", name: "data_inlining_row_limit", value: "5" }],
    });
    const s = await commit(store, catalog, {
      verbs: [{ op: "create_table", name: "t", columns: twoCols }],
      author: "ana",
      message: "make t",
    });
    expect(s).toBe(1);
    expect((await ducklakeTable(store.snapshot(), "ducklake_snapshot_changes"))[1]).toMatchObject({
      author: "ana",
      commit_message: "make t",
    });
    await commit(store, catalog, {
      verbs: [{ op: "set_option", name: "require_commit_message", value: "false" }],
    });
    expect(await commit(store, catalog, { verbs: [{ op: "drop_table", table: T }] })).toBe(2);
  });

  it("a compaction commits alone: expiries next to any other change are refused", async () => {
    // DuckLake 1.5.5: "Transactions can either make changes OR perform compaction - not both" (probed
    // with INSERT, CREATE TABLE and DELETE next to ducklake_merge_adjacent_files).
    const { store, catalog } = await fresh("compaction-alone");
    await commit(store, catalog, { verbs: [{ op: "create_table", name: "t", columns: twoCols }] });
    await commit(store, catalog, {
      verbs: [
        { op: "register_data_file", table: T, file: { path: "a.parquet", recordCount: 3, fileSizeBytes: 1 } },
        { op: "register_data_file", table: T, file: { path: "b.parquet", recordCount: 3, fileSizeBytes: 1 } },
      ],
    });
    await commit(store, catalog, {
      verbs: [{ op: "register_delete_file", table: T, dataFileId: 1, file: del("d.parquet", 1) }],
    });
    const others: Verb[] = [
      { op: "register_data_file", table: T, file: { path: "c.parquet", recordCount: 1, fileSizeBytes: 1 } },
      { op: "create_table", name: "u", columns: twoCols },
      { op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 1, positions: [0] }] },
    ];
    for (const other of others) {
      const mixed = catalog.commit({ verbs: [{ op: "expire_data_file", table: T, dataFileId: 0 }, other] });
      await expect(mixed).rejects.toMatchObject({ code: "InvalidRequest" });
      await expect(mixed).rejects.toThrow(/either compacts .* or makes other changes/);
    }
    // Stats carry no change entry, so they may ride along; both compaction kinds together are one compaction.
    const s = await commit(store, catalog, {
      verbs: [
        { op: "expire_data_file", table: T, dataFileId: 0 },
        { op: "expire_delete_file", table: T, deleteFileId: 2 },
        { op: "set_table_stats", table: T, recordCount: 3 },
      ],
    });
    expect((await ducklakeTable(store.snapshot(), "ducklake_snapshot_changes"))[s]?.changes_made).toBe(
      "merge_adjacent:1,rewrite_delete:1",
    );
  });
});

describe("refusals without a test elsewhere", () => {
  it("alter_column refuses to change the type of a nested column, or to a nested type", async () => {
    const { store, catalog } = await fresh("alter-nested");
    await commit(store, catalog, {
      verbs: [
        {
          op: "create_table",
          name: "t",
          columns: [
            { name: "id", type: "int32" },
            { name: "st", type: "struct", children: [{ name: "a", type: "int32" }] },
            { name: "ls", type: "list", children: [{ name: "element", type: "varchar" }] },
          ],
        },
      ],
    });
    for (const [column, type] of [
      ["st", "varchar"],
      ["ls", "int64"],
      ["id", "struct"],
      ["id", "map"],
    ] as const) {
      const out = catalog.commit({ verbs: [{ op: "alter_column", table: T, column, type }] });
      await expect(out).rejects.toMatchObject({ code: "Unsupported" });
      await expect(out).rejects.toThrow(/nested/);
    }
    // A field inside a struct is a primitive: its type may change.
    const s = await commit(store, catalog, {
      verbs: [{ op: "alter_column", table: T, column: { path: ["st", "a"] }, type: "int64" }],
    });
    expect(s).toBe(2);
  });

  it("a schema drop that loses the race to a create inside that schema is a CommitConflict, and vice versa", async () => {
    const { store, catalog } = await fresh("drop-schema-race");
    await commit(store, catalog, { verbs: [{ op: "create_schema", name: "s2" }] });
    const other = await openCatalog(store);
    const race = racing(store, async () => {
      await other.commit({ verbs: [{ op: "create_table", schema: "s2", name: "late", columns: twoCols }] });
    });
    const loser = await openCatalog(race.store, { random: () => 0 });
    race.arm(1);
    const dropped = loser.commit({ verbs: [{ op: "drop_schema", schema: "s2" }] });
    await expect(dropped).rejects.toMatchObject({ code: "CommitConflict" });
    await expect(dropped).rejects.toThrow(/dropping schema 1, in which a concurrent commit created an entry/);
    const view = store.snapshot();
    expect(
      (await ducklakeTable(view, "ducklake_schema")).map((r) => [r.schema_name, r.end_snapshot]),
    ).toEqual([
      ["main", null],
      ["s2", null],
    ]);
    expect((await ducklakeTable(view, "ducklake_table")).map((r) => r.table_name)).toEqual(["late"]);

    // The other way round: a create inside a schema that a concurrent commit dropped.
    const f = await fresh("create-in-dropped");
    await commit(f.store, f.catalog, { verbs: [{ op: "create_schema", name: "s3" }] });
    const dropper = await openCatalog(f.store);
    const race2 = racing(f.store, async () => {
      await dropper.commit({ verbs: [{ op: "drop_schema", schema: "s3" }] });
    });
    const creator = await openCatalog(race2.store, { random: () => 0 });
    race2.arm(1);
    const created = creator.commit({
      verbs: [{ op: "create_table", schema: "s3", name: "t", columns: twoCols }],
    });
    await expect(created).rejects.toMatchObject({ code: "CommitConflict" });
    await expect(created).rejects.toThrow(/creating an entry in schema 1, which a concurrent commit dropped/);
  });
});
