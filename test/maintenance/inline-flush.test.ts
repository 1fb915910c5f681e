/**
 * Maintenance job 1 (flush inlined rows): the rows a reader sees at every snapshot are the same before
 * and after the job, row ids included; running it twice changes nothing; a commit refused after the PUT
 * leaves only an unreferenced file. The reader (`rowsAt` in lake.ts) applies DuckLake's scan rules to the plan and the
 * files in R2 (snapshot filters on `_ducklake_internal_snapshot_id`, delete files, inlined rows).
 */
import { describe, expect, it } from "vitest";
import { type Catalog, type CommitRequest, head, openCatalog, tableFilesAt } from "../../catalog/index.ts";
import { runFlushJob } from "../../maintenance/inline-flush.ts";
import type { Bucket } from "../../storage/api.ts";
import { bucket, racing, settle } from "../catalog/support.ts";
import { DATA_PREFIX, everySnapshot, freshLake, rowsAt } from "./lake.ts";

describe("maintenance: flush inlined rows", () => {
  it("keeps every snapshot's rows and row ids, deletes included, and a second run flushes nothing", async () => {
    const l = await freshLake("mt-flush");
    const { lake, store, catalog } = l;
    const commit = async (verbs: unknown[]) => {
      const r = await catalog.commit({ verbs } as never);
      await settle(store, r.durable);
      return r;
    };
    await commit([
      {
        op: "create_table",
        name: "t",
        columns: [
          { name: "id", type: "int64" },
          { name: "amount", type: "decimal(18,2)" },
          { name: "tags", type: "list", children: [{ name: "element", type: "varchar" }] },
        ],
      },
    ]);
    for (let i = 0; i < 14; i++)
      await commit([
        {
          op: "inline_insert",
          table: { name: "t" },
          rows: [{ id: i, amount: `${i}.25`, tags: i % 3 ? [`x${i}`] : null }],
        },
      ]);
    await commit([{ op: "inline_delete", table: { name: "t" }, rowIds: [3, 7] }]);
    const before = await everySnapshot(l);
    const last = Math.max(...before.keys());
    expect(before.get(last)?.size).toBe(12);
    expect(before.get(last - 1)?.size).toBe(14);
    const job = {
      lake,
      bucket: bucket(),
      view: () => store.snapshot(),
      commit: async (request: CommitRequest) => {
        const r = await catalog.commit(request);
        await settle(store, r.durable);
        return { snapshotId: r.snapshotId };
      },
      now: () => Date.now(),
    };
    const runs = await runFlushJob(job);
    expect(runs.map((r) => [r.error, r.rowsIn, r.filesOut])).toEqual([[null, 14, 2]]);
    const after = await everySnapshot(l);
    // Every snapshot from before reads the same rows (ids and values); the flush's own snapshot reads the head's.
    for (const [s, rows] of before) expect([s, after.get(s)]).toEqual([s, rows]);
    expect(after.get(runs[0]?.snapshotId ?? -1)).toEqual(before.get(last));
    const plan = await tableFilesAt(store.snapshot(), { name: "t" });
    expect(plan.inlined_rows).toEqual([]);
    expect(plan.files).toHaveLength(1);
    // Nothing above the threshold any more: a second run plans nothing.
    expect(await runFlushJob(job)).toEqual([]);
  });

  it("a commit refused after the PUT leaves the rows inlined and only an unreferenced file behind", async () => {
    const l = await freshLake("mt-flush-refused");
    const { lake, store, catalog } = l;
    const commit = async (verbs: unknown[]) => {
      const r = await catalog.commit({ verbs } as never);
      await settle(store, r.durable);
    };
    await commit([{ op: "create_table", name: "t", columns: [{ name: "id", type: "int32" }] }]);
    for (let i = 0; i < 12; i++)
      await commit([{ op: "inline_insert", table: { name: "t" }, rows: [{ id: i }] }]);
    const before = await everySnapshot(l);
    let puts = 0;
    const b = bucket();
    const counting: Bucket = {
      ...b,
      put: (k, v, o) => {
        puts++;
        return b.put(k, v, o);
      },
      get: (k, o) => b.get(k, o),
      head: (k) => b.head(k),
      list: (o) => b.list(o),
      delete: (k) => b.delete(k),
    };
    const runs = await runFlushJob({
      lake,
      bucket: counting,
      view: () => store.snapshot(),
      commit: async () => {
        throw new Error("interrupted before the commit");
      },
      now: () => Date.now(),
    });
    expect(puts).toBe(1);
    expect(runs[0]?.error).toContain("interrupted before the commit");
    expect(await everySnapshot(l)).toEqual(before);
    const listed = await b.list({ prefix: `lakes/${lake}/data/` });
    expect(listed.objects).toHaveLength(1);
    // The job is resumable: the next run flushes the same rows into a new file.
    const again = await runFlushJob({
      lake,
      bucket: b,
      view: () => store.snapshot(),
      commit: async (request) => {
        const r = await catalog.commit(request);
        await settle(store, r.durable);
        return { snapshotId: r.snapshotId };
      },
      now: () => Date.now(),
    });
    expect(again.map((r) => [r.error, r.rowsIn])).toEqual([[null, 12]]);
    const plan = await tableFilesAt(store.snapshot(), { name: "t" });
    expect(plan.inlined_rows).toEqual([]);
  });

  for (const race of ["append", "delete"] as const) {
    it(`racing a concurrent ${race} of the table: ${race === "append" ? "benign, no row lost or duplicated" : "a true conflict, nothing flushed"}`, async () => {
      const l = await freshLake(`mt-race-${race}`);
      const { lake, store, catalog } = l;
      const commit = async (c: Catalog, verbs: unknown[]) => {
        const r = await c.commit({ verbs } as never);
        await settle(store, r.durable);
      };
      await commit(catalog, [{ op: "create_table", name: "t", columns: [{ name: "id", type: "int32" }] }]);
      for (let i = 0; i < 12; i++)
        await commit(catalog, [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: i }] }]);
      let landed = 0;
      const raced = racing(store, async () => {
        landed++;
        await commit(
          catalog,
          race === "append"
            ? [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: 100 + landed }] }]
            : [{ op: "inline_delete", table: { name: "t" }, rowIds: [5] }],
        );
      });
      const flusher = await openCatalog(raced.store, { dataPath: `${DATA_PREFIX}${lake}/data/` });
      raced.arm(1);
      const runs = await runFlushJob({
        lake,
        bucket: bucket(),
        view: () => store.snapshot(),
        commit: async (request) => {
          const r = await flusher.commit(request);
          await settle(store, r.durable);
          return { snapshotId: r.snapshotId };
        },
        now: () => Date.now(),
      });
      // The interference really landed inside the flush's transaction.
      expect(landed).toBe(1);
      const h = await head(store.snapshot());
      const rows = await rowsAt(l, h.snapshot_id);
      if (race === "append") {
        expect(runs.map((r) => r.error)).toEqual([null]);
        expect([...rows.values()].map((v) => v.id).sort((a, b) => Number(a) - Number(b))).toEqual([
          ...Array.from({ length: 12 }, (_, i) => i),
          101,
        ]);
        expect([...rows.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i));
      } else {
        expect(runs[0]?.error).toMatch(/^CommitConflict/);
        expect(rows.size).toBe(11);
        expect(rows.has(5)).toBe(false);
        expect((await tableFilesAt(store.snapshot(), { name: "t" })).files).toEqual([]);
      }
    });
  }

  it("leaves a table alone while DuckLake's auto_compact option is false for it, and flushes it once reset", async () => {
    const l = await freshLake("mt-auto-compact");
    const { lake, store, catalog } = l;
    const commit = async (verbs: unknown[]) => {
      const r = await catalog.commit({ verbs } as never);
      await settle(store, r.durable);
    };
    await commit([{ op: "create_table", name: "t", columns: [{ name: "id", type: "int32" }] }]);
    for (let i = 0; i < 11; i++)
      await commit([{ op: "inline_insert", table: { name: "t" }, rows: [{ id: i }] }]);
    await commit([
      { op: "set_option", scope: { table: { name: "t" } }, name: "auto_compact", value: "false" },
    ]);
    const job = {
      lake,
      bucket: bucket(),
      view: () => store.snapshot(),
      commit: async (request: CommitRequest) => {
        const r = await catalog.commit(request);
        await settle(store, r.durable);
        return { snapshotId: r.snapshotId };
      },
      now: () => Date.now(),
    };
    expect(await runFlushJob(job)).toEqual([]);
    expect((await tableFilesAt(store.snapshot(), { name: "t" })).inlined_rows).toHaveLength(11);
    await commit([{ op: "unset_option", scope: { table: { name: "t" } }, name: "auto_compact" }]);
    expect((await runFlushJob(job)).map((r) => [r.error, r.rowsIn])).toEqual([[null, 11]]);
  });
});
