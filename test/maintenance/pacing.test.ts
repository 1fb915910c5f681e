/**
 * Paced maintenance steps (decision docs/decisions/0325-paced-maintenance.md): a flush or a merge of more
 * rows than one stretch holds awaits the host's pause at least once per MAINTENANCE_ROWS_PER_PAUSE rows
 * scanned or re-laid and once per row group encoded or decoded, the files it writes have row groups of
 * MAINTENANCE_ROWS_PER_ROW_GROUP rows, and the Pacer never lets more than its limit pass between two
 * pauses. Counting only: no timing.
 */
import { describe, expect, it } from "vitest";
import { type Catalog, type CommitRequest, openCatalog, tableFilesAt } from "../../catalog/index.ts";
import {
  MAINTENANCE_ROWS_PER_PAUSE,
  MAINTENANCE_ROWS_PER_ROW_GROUP,
  Pacer,
} from "../../catalog/maintenance/pace.ts";
import { runMergeJob } from "../../maintenance/compaction.ts";
import { runFlushJob } from "../../maintenance/inline-flush.ts";
import { readParquet } from "../../parquet/index.ts";
import type { Store } from "../../storage/api.ts";
import { openWriter } from "../../storage/index.ts";
import { bucket, lakeName, settle } from "../catalog/support.ts";

const DATA_PREFIX = "r2://ducklake-edge/lakes/";
/** Rows inserted: two full stretches and a part, so every bound is crossed more than once. */
const ROWS = 2 * MAINTENANCE_ROWS_PER_PAUSE + 300;
const INSERT_BATCH = 1000;

async function lakeWithRows(tag: string): Promise<{ lake: string; store: Store; catalog: Catalog }> {
  const lake = lakeName(tag);
  const store = await openWriter(bucket(), lake);
  const catalog = await openCatalog(store, { dataPath: `${DATA_PREFIX}${lake}/data/` });
  const commit = async (verbs: unknown[]) =>
    settle(store, (await catalog.commit({ verbs } as never)).durable);
  await commit([
    {
      op: "create_table",
      name: "t",
      columns: [
        { name: "id", type: "int64" },
        { name: "s", type: "varchar" },
      ],
    },
  ]);
  for (let i = 0; i < ROWS; i += INSERT_BATCH) {
    const n = Math.min(INSERT_BATCH, ROWS - i);
    await commit([
      {
        op: "inline_insert",
        table: { name: "t" },
        rows: Array.from({ length: n }, (_, k) => ({ id: i + k, s: `row-${i + k}` })),
      },
    ]);
  }
  return { lake, store, catalog };
}

function deps(lake: string, store: Store, catalog: Catalog, pauses: { n: number }) {
  return {
    lake,
    bucket: bucket(),
    view: () => store.snapshot(),
    commit: async (request: CommitRequest) => {
      const r = await catalog.commit(request);
      await settle(store, r.durable);
      return { snapshotId: r.snapshotId };
    },
    now: () => Date.now(),
    pause: async () => {
      pauses.n++;
      await Promise.resolve();
    },
  };
}

/** Row groups of a file: a paced read pauses once per row group. */
async function rowGroups(resolved: string): Promise<number> {
  const obj = await bucket().get(`lakes/${resolved.slice(DATA_PREFIX.length)}`);
  if (!obj) throw new Error(`missing ${resolved}`);
  let n = 0;
  await readParquet(new Uint8Array(await obj.arrayBuffer()), {
    pause: async () => {
      n++;
    },
  });
  return n;
}

const stretches = (rows: number, per: number): number => Math.floor(rows / per);
const groups = (rows: number): number => Math.ceil(rows / MAINTENANCE_ROWS_PER_ROW_GROUP);

describe("paced maintenance steps", () => {
  it("a Pacer pauses after every `every` rows and never lets more pass between two pauses", async () => {
    let since = 0;
    let widest = 0;
    let pauses = 0;
    const p = new Pacer(async () => {
      pauses++;
      since = 0;
    }, 7);
    for (let i = 0; i < 50; i++) {
      since++;
      widest = Math.max(widest, since);
      await p.tick();
    }
    expect(pauses).toBe(7);
    expect(widest).toBe(7);
  });

  it("a flush pauses per stretch of rows scanned and laid out and per row group encoded, and writes row groups of the paced size", async () => {
    const { lake, store, catalog } = await lakeWithRows("mtl-pace-flush");
    const pauses = { n: 0 };
    const runs = await runFlushJob({ ...deps(lake, store, catalog, pauses), threshold: 0 });
    expect(runs.map((r) => [r.error, r.rowsIn])).toEqual([[null, ROWS]]);
    // Scan, lay-out and encode each pause at least this often (the scan may read a row past the run).
    const least = 2 * stretches(ROWS, MAINTENANCE_ROWS_PER_PAUSE) + groups(ROWS);
    expect(pauses.n).toBeGreaterThanOrEqual(least);
    const plan = await tableFilesAt(store.snapshot(), { name: "t" });
    expect(plan.inlined_rows).toHaveLength(0);
    expect(plan.files).toHaveLength(1);
    expect(await rowGroups(plan.files[0]?.resolved_path ?? "")).toBe(groups(ROWS));
  });

  it("a merge pauses per row group decoded, per stretch of rows re-laid and per row group encoded", async () => {
    const { lake, store, catalog } = await lakeWithRows("mtl-pace-merge");
    const half = Math.ceil(ROWS / 2);
    const none = { n: 0 };
    for (let k = 0; k < 2; k++) {
      const r = await runFlushJob({
        ...deps(lake, store, catalog, none),
        threshold: 0,
        maxRowsPerStep: half,
      });
      expect(r.map((x) => x.error)).toEqual([null]);
    }
    expect((await tableFilesAt(store.snapshot(), { name: "t" })).files).toHaveLength(2);
    const pauses = { n: 0 };
    const runs = await runMergeJob(deps(lake, store, catalog, pauses));
    expect(runs.map((r) => [r.error, r.rowsIn, r.filesIn])).toEqual([[null, ROWS, 2]]);
    const decoded = groups(half) + groups(ROWS - half);
    const least = decoded + 2 * stretches(ROWS, MAINTENANCE_ROWS_PER_PAUSE) + groups(ROWS);
    expect(pauses.n).toBeGreaterThanOrEqual(least);
    const plan = await tableFilesAt(store.snapshot(), { name: "t" });
    expect(plan.files).toHaveLength(1);
    expect(await rowGroups(plan.files[0]?.resolved_path ?? "")).toBe(groups(ROWS));
  });
});
