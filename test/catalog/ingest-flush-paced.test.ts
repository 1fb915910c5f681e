/**
 * The row ingestion's Parquet is paced as maintenance's is (docs/decisions/0325-paced-maintenance.md): a
 * flush batch (`drainRowLog`) and a `lake` write (`commitLakeWrite`) above the inlining limit lay out and
 * encode their file through the host's pause — after every MAINTENANCE_ROWS_PER_PAUSE rows laid out and
 * after every row group — so a large ingestion flush never holds the writer's event loop, and the commits
 * waiting on it, for one long stretch. Counted, not timed: the pause resolves at once and records each
 * call, and the file written is the one the paced rule makes (one row group per stretch).
 */

import { parquetMetadata } from "hyparquet";
import { describe, expect, it } from "vitest";
import { readRows } from "../../catalog/index.ts";
import {
  MAINTENANCE_ROWS_PER_PAUSE,
  MAINTENANCE_ROWS_PER_ROW_GROUP,
} from "../../catalog/maintenance/pace.ts";
import { MAX_FLUSH_RECORDS } from "../../catalog/row-log-limits.ts";
import { commitLakeWrite } from "../../maintenance/lake-write.ts";
import { drainRowLog } from "../../maintenance/rows-flush.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import { bucket, createEvents, durableLake } from "./support.ts";

const T = { schema: "main", name: "events" };
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
/** One flush batch's worth of rows: several stretches and row groups in one file. */
const N = MAX_FLUSH_RECORDS;

async function rig(tag: string) {
  const { lake, store, commit } = await durableLake(tag);
  await commit({ verbs: createEvents() });
  let pauses = 0;
  const pause = async (): Promise<void> => {
    pauses++;
  };
  const files = dataObjectReader(bucket(), lake);
  /** The lake's data files' row-group counts. */
  const rowGroups = async (): Promise<number[]> => {
    const listed = await bucket().list({ prefix: `lakes/${lake}/data/` });
    const out: number[] = [];
    for (const o of listed.objects) {
      const body = await bucket().get(o.key);
      if (body === null) throw new Error(`${o.key} vanished`);
      out.push(parquetMetadata(await body.arrayBuffer()).row_groups.length);
    }
    return out;
  };
  const ids = async () =>
    (await readRows(store.snapshot(), T, { limit: N }, files)).rows
      .map((r) => Number(r.id))
      .sort((a, b) => a - b);
  return { lake, store, commit, pause, pauses: () => pauses, files, rowGroups, ids };
}

const inserts = (ids: number[], writePath?: "lake") => ({
  verbs: [
    {
      op: "rows_write" as const,
      table: T,
      ...(writePath !== undefined ? { writePath } : {}),
      ops: ids.map((id) => ({ op: "insert" as const, row: { id, v: `v${id}` } })),
    },
  ],
});

/** Pauses of one file of `n` rows: after each full stretch of rows laid out, and after each row group. */
const expectedPauses = (n: number): number =>
  Math.floor(n / MAINTENANCE_ROWS_PER_PAUSE) + Math.ceil(n / MAINTENANCE_ROWS_PER_ROW_GROUP);

describe("ingestion Parquet is paced (decision 0325)", () => {
  it("a flush batch above the inlining limit pauses between its stretches and writes one row group per stretch", async () => {
    const r = await rig("ingest-paced-flush");
    await r.commit(inserts(range(0, N)));
    const d = await drainRowLog({
      lake: r.lake,
      bucket: bucket(),
      view: () => r.store.snapshot(),
      commit: r.commit,
      now: Date.now,
      message: "flush",
      files: r.files,
      pause: r.pause,
    });
    expect(d).toMatchObject({ records: N, batches: 1 });
    expect(r.pauses()).toBe(expectedPauses(N));
    expect(await r.rowGroups()).toEqual([Math.ceil(N / MAINTENANCE_ROWS_PER_ROW_GROUP)]);
    expect(await r.ids()).toEqual(range(0, N));
  });

  it("a lake write above the inlining limit pauses the same way before its PUT", async () => {
    const r = await rig("ingest-paced-lake");
    await commitLakeWrite(
      { lake: r.lake, bucket: bucket(), now: Date.now, view: () => r.store.snapshot(), pause: r.pause },
      inserts(range(0, N), "lake"),
      r.commit,
    );
    expect(r.pauses()).toBe(expectedPauses(N));
    expect(await r.rowGroups()).toEqual([Math.ceil(N / MAINTENANCE_ROWS_PER_ROW_GROUP)]);
    expect(await r.ids()).toEqual(range(0, N));
  });
});
