/**
 * Rows a client appends straight into a `ducklake_*` table (Quack APPEND_REQUEST), through the lake
 * writer's `sqlWrite` on real Durable Objects and R2 (docs/decisions/0710-metadata-appends.md): accepted
 * tables store the rows, a chunk lands whole or not at all, refusals name their shape, and an appended
 * `ducklake_snapshot_changes` row for the next snapshot fails that commit whole on its primary key.
 */
import { describe, expect, it } from "vitest";
import { DUCKLAKE_TABLES, ducklakeTable, type SqlValue } from "../../../catalog/index.ts";
import { T } from "../../../catalog/sql/result.ts";
import type {
  MetadataAppend,
  SqlWriteAnswer,
  SqlWriteRequest,
} from "../../../catalog/sql/writes/contract.ts";
import type { Envelope } from "../../../durable-objects/envelope.ts";
import type { HeadAnswer } from "../../../durable-objects/types.ts";
import { openLatest } from "../../../storage/index.ts";
import { lakeName, realBucket, rigLake, stub } from "../../durable-objects/support.ts";
import fixture from "../../support/quack-writes.ts";

interface Step {
  step: string;
  writes: string[];
}
const core = (fixture as unknown as { scenarios: Record<string, { steps: Step[] }> }).scenarios.core;
const stepSql = (step: string): string => {
  const s = core?.steps.find((x) => x.step === step)?.writes[0];
  if (s === undefined) throw new Error(`fixture has no step ${step}`);
  return s;
};

interface Rpc {
  sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
  head(lake: string): Promise<Envelope<HeadAnswer>>;
}
const rpc = (lake: string): Rpc => stub(lake) as unknown as Rpc;

const TYPES: Record<string, MetadataAppend["types"]> = {
  ducklake_tag: [T.BIGINT, T.BIGINT, T.BIGINT, T.VARCHAR, T.VARCHAR],
  ducklake_table_stats: [T.BIGINT, T.BIGINT, T.BIGINT, T.BIGINT],
  ducklake_snapshot_changes: [T.BIGINT, T.VARCHAR, T.VARCHAR, T.VARCHAR, T.VARCHAR],
};

function append(
  lake: string,
  table: string,
  rows: SqlValue[][],
  admin = false,
  schema = "main",
): Promise<Envelope<SqlWriteAnswer>> {
  const types = TYPES[table] ?? [T.BIGINT];
  return rpc(lake).sqlWrite(lake, { sql: "", mayCreateLake: admin, append: { schema, table, types, rows } });
}

function ok<V>(e: Envelope<V>): V {
  if (!e.ok) throw new Error(`expected success, got ${e.error.code}: ${e.error.message}`);
  return e.value;
}

function refused<V>(e: Envelope<V>): string {
  if (e.ok) throw new Error("expected a refusal");
  return `${e.error.code}: ${e.error.message}`;
}

async function table(lake: string, position: number, name: string): Promise<unknown[]> {
  return ducklakeTable(await openLatest(realBucket(), lake, { after: position }), name);
}

/** A lake holding schema `s1` and table 2 at snapshot 2 (DuckLake's captured batches). */
async function lake(tag: string): Promise<{ lake: string; position: number }> {
  const name = lakeName(tag);
  rigLake(name);
  let position = ok(
    await rpc(name).sqlWrite(name, { sql: stepSql("attach_new"), mayCreateLake: true }),
  ).position;
  for (const s of ["create_schema", "create_table"])
    position = ok(await rpc(name).sqlWrite(name, { sql: stepSql(s), mayCreateLake: false })).position;
  return { lake: name, position };
}

describe("rows appended to ducklake_* tables", () => {
  it("stores tags as given and refuses a second live row for one key, the whole chunk with it", async () => {
    const { lake: l } = await lake("append-tags");
    const a = ok(await append(l, "ducklake_tag", [[2n, 2n, null, "owner", "alice"]]));
    expect(a.result.rows).toEqual([[1n]]);
    const tags = await table(l, a.position, "ducklake_tag");
    expect(tags).toContainEqual({
      object_id: 2,
      begin_snapshot: 2,
      end_snapshot: null,
      key: "owner",
      value: "alice",
    });
    const twice = await append(l, "ducklake_tag", [
      [2n, 2n, null, "team", "x"],
      [2n, 2n, null, "owner", "bob"],
    ]);
    expect(refused(twice)).toMatch(/^Constraint: .*tag "owner" is live there already.*0710/);
    const head = ok(await rpc(l).head(l));
    expect(await table(l, head.position, "ducklake_tag")).toEqual(tags);
    // An ended row for the key is history, not a second live row.
    ok(await append(l, "ducklake_tag", [[2n, 1n, 2n, "owner", "old"]]));
  });

  it("seeds a table's stats row once; a second row or a missing table is refused by name", async () => {
    const { lake: l } = await lake("append-stats");
    const a = ok(await append(l, "ducklake_table_stats", [[2n, 5n, 5n, 100n]]));
    expect(await table(l, a.position, "ducklake_table_stats")).toEqual([
      { table_id: 2, record_count: 5, next_row_id: 5, file_size_bytes: 100 },
    ]);
    expect(refused(await append(l, "ducklake_table_stats", [[2n, 1n, 1n, 1n]]))).toMatch(
      /has its stats row already/,
    );
    expect(refused(await append(l, "ducklake_table_stats", [[99n, 1n, 1n, 1n]]))).toMatch(
      /names table 99, which does not exist at snapshot 2/,
    );
  });

  it("refuses tables whose rows this server derives, inlined tables, and unknown tables", async () => {
    const { lake: l } = await lake("append-refused");
    expect(refused(await append(l, "ducklake_data_file", [[1n]]))).toMatch(
      /^Unsupported: .*rows appended to ducklake_data_file: this server derives that table/,
    );
    expect(refused(await append(l, "ducklake_inlined_data_2_1", [[1n]]))).toMatch(/never appended directly/);
    expect(refused(await append(l, "ducklake_tag", [[1n]], false, "other"))).toMatch(
      /Table with name other.ducklake_tag does not exist!/,
    );
    expect(refused(await append(l, "ducklake_nope", [[1n]]))).toMatch(/main.ducklake_nope does not exist/);
    expect(refused(await append(l, "ducklake_tag", [[1n, null, null, "k", "v"]]))).toMatch(
      /holds NULL in begin_snapshot/,
    );
    expect(Object.keys(DUCKLAKE_TABLES)).toContain("ducklake_data_file");
  });

  it("a snapshot_changes row: a duplicate key with stock's text; one for the next snapshot fails that commit whole", async () => {
    const { lake: l, position } = await lake("append-changes");
    const row = (id: bigint): SqlValue[] => [id, "orphan", null, null, null];
    expect(refused(await append(l, "ducklake_snapshot_changes", [row(2n)], true))).toBe(
      'DuplicateKey: Failed to append: Duplicate key "snapshot_id: 2" violates primary key constraint.',
    );
    expect(refused(await append(l, "ducklake_snapshot_changes", [row(3n)], false))).toMatch(
      /only a token with admin scope/,
    );
    const before = await table(l, position, "ducklake_snapshot");
    const a = ok(await append(l, "ducklake_snapshot_changes", [row(3n)], true));
    const changes = await table(l, a.position, "ducklake_snapshot_changes");
    expect(changes).toContainEqual({
      snapshot_id: 3,
      changes_made: "orphan",
      author: null,
      commit_message: null,
      commit_extra_info: null,
    });
    expect(refused(await append(l, "ducklake_snapshot_changes", [row(3n)], true))).toMatch(
      /Duplicate key "snapshot_id: 3"/,
    );
    // The next commit would mint snapshot 3: it fails on the key and writes nothing.
    const insert = await rpc(l).sqlWrite(l, { sql: stepSql("insert_inlined"), mayCreateLake: false });
    expect(refused(insert)).toBe(
      'DuplicateKey: Duplicate key "snapshot_id: 3" violates primary key constraint.',
    );
    const head = ok(await rpc(l).head(l));
    expect(head.snapshotId).toBe(2);
    expect(await table(l, head.position, "ducklake_snapshot")).toEqual(before);
    expect(await table(l, head.position, "ducklake_snapshot_changes")).toEqual(changes);
  });
});
