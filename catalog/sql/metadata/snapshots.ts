/**
 * Snapshot reads: the latest snapshot (sent before nearly every statement), one snapshot by id, the
 * snapshot list with its changes (`snapshots()`), the snapshots older than a time (expire_snapshots), and
 * the distinct schema versions. The single-snapshot reads go to the head and one record, not the list.
 */
import { NotFound } from "../../errors.ts";
import { readHead, readSnapshot, resolveSnapshot } from "../../head.ts";
import type { SnapshotRecord } from "../../records.ts";
import { literalsOf, shapeOf, tokenize } from "../lexer.ts";
import type { ReadTemplate, SqlReadContext } from "../reads.ts";
import { type SqlColumn, type SqlValue, T } from "../result.ts";
import {
  big,
  byShape,
  cell,
  compareIds,
  intLiteral,
  literal,
  memoised,
  requireView,
  result,
  rowsOf,
  timestamptzMicros,
} from "./common.ts";

const SNAPSHOT_COLUMNS: readonly SqlColumn[] = [
  { name: "snapshot_id", type: T.BIGINT },
  { name: "schema_version", type: T.BIGINT },
  { name: "next_catalog_id", type: T.BIGINT },
  { name: "next_file_id", type: T.BIGINT },
];

function snapshotRow(s: SnapshotRecord): SqlValue[] {
  return [BigInt(s.snapshot_id), BigInt(s.schema_version), BigInt(s.next_catalog_id), BigInt(s.next_file_id)];
}

/** The head's snapshot record, once per cut. */
export function headSnapshot(ctx: SqlReadContext): Promise<SnapshotRecord> {
  const view = requireView(ctx);
  return memoised(ctx, "metadata-reads:head-snapshot", () => resolveSnapshot(view));
}

const latest = byShape(
  "snapshot.latest",
  'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot)',
  async (ctx) => result(SNAPSHOT_COLUMNS, [snapshotRow(await headSnapshot(ctx))]),
);

const byId = byShape(
  "snapshot.by_id",
  'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = 4',
  async (ctx, stmt) => {
    const view = requireView(ctx);
    const id = intLiteral(stmt, 0);
    const head = await readHead(view);
    if (id < 0 || id > head.snapshot_id) return result(SNAPSHOT_COLUMNS, []);
    try {
      return result(SNAPSHOT_COLUMNS, [snapshotRow(await readSnapshot(view, id))]);
    } catch (e) {
      // An expired snapshot's record is gone: no row, as in DuckLake's table.
      if (e instanceof NotFound) return result(SNAPSHOT_COLUMNS, []);
      throw e;
    }
  },
);

const LIST_COLUMNS: readonly SqlColumn[] = [
  { name: "snapshot_id", type: T.BIGINT },
  { name: "snapshot_time", type: T.TIMESTAMPTZ },
  { name: "schema_version", type: T.BIGINT },
  { name: "next_file_id", type: T.BIGINT },
  { name: "changes_made", type: T.VARCHAR },
  { name: "author", type: T.VARCHAR },
  { name: "commit_message", type: T.VARCHAR },
  { name: "commit_extra_info", type: T.VARCHAR },
];

/** ducklake_snapshot LEFT JOIN ducklake_snapshot_changes USING (snapshot_id) ORDER BY snapshot_id. */
async function snapshotList(ctx: SqlReadContext): Promise<SqlValue[][]> {
  const snaps = [...(await rowsOf(ctx, "ducklake_snapshot"))].sort((a, b) =>
    compareIds(a.snapshot_id, b.snapshot_id),
  );
  const changes = new Map((await rowsOf(ctx, "ducklake_snapshot_changes")).map((r) => [r.snapshot_id, r]));
  return snaps.map((s) => {
    const c = changes.get(s.snapshot_id);
    return [
      big(s.snapshot_id),
      big(s.snapshot_time),
      big(s.schema_version),
      big(s.next_file_id),
      cell(c?.changes_made),
      cell(c?.author),
      cell(c?.commit_message),
      cell(c?.commit_extra_info),
    ];
  });
}

const list = byShape(
  "snapshot.list",
  'SELECT snapshot_id, snapshot_time, schema_version, next_file_id, changes_made, author, commit_message, commit_extra_info FROM "main".ducklake_snapshot LEFT JOIN "main".ducklake_snapshot_changes USING (snapshot_id) ORDER BY snapshot_id',
  async (ctx) => result(LIST_COLUMNS, await snapshotList(ctx)),
);

const olderThan = byShape(
  "snapshot.older_than",
  'SELECT snapshot_id, snapshot_time, schema_version, next_file_id, changes_made, author, commit_message, commit_extra_info FROM "main".ducklake_snapshot LEFT JOIN "main".ducklake_snapshot_changes USING (snapshot_id) WHERE snapshot_id != (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot) AND snapshot_time < \'2026-12-01T07:05:43.705537+00\' ORDER BY snapshot_id',
  async (ctx, stmt) => {
    const before = timestamptzMicros(literal(stmt, 0));
    const rows = await snapshotList(ctx);
    const max = rows.reduce<bigint | null>((m, r) => {
      const id = r[0] as bigint;
      return m === null || id > m ? id : m;
    }, null);
    return result(
      LIST_COLUMNS,
      rows.filter((r) => r[0] !== max && r[1] !== null && (r[1] as bigint) < before),
    );
  },
);

/**
 * `ducklake_expire_snapshots(versions => [...])`: the named snapshots except the newest, with their changes.
 * The IN list has one `?` per version, so the shape is matched with the list folded to one `?`.
 */
const IN_LIST = /IN \( \?(?: , \?)* \) ORDER BY snapshot_id$/;
const versionsShape = shapeOf(
  tokenize(
    'SELECT snapshot_id, snapshot_time, schema_version, next_file_id, changes_made, author, commit_message, commit_extra_info FROM "main".ducklake_snapshot LEFT JOIN "main".ducklake_snapshot_changes USING (snapshot_id) WHERE snapshot_id != (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot) AND snapshot_id IN (1) ORDER BY snapshot_id',
  ),
);
const versions: ReadTemplate = {
  name: "snapshot.versions",
  matches: (s) => s.replace(IN_LIST, "IN ( ? ) ORDER BY snapshot_id") === versionsShape,
  answer: async (ctx, stmt) => {
    const wanted = new Set(literalsOf(stmt.tokens).map((t) => BigInt(t.value)));
    const rows = await snapshotList(ctx);
    const max = rows.reduce<bigint | null>((m, r) => {
      const id = r[0] as bigint;
      return m === null || id > m ? id : m;
    }, null);
    return result(
      LIST_COLUMNS,
      rows.filter((r) => r[0] !== max && wanted.has(r[0] as bigint)),
    );
  },
};

/**
 * `AT (TIMESTAMP => t)`: the newest snapshot taken at or before t (ties on the time: the highest id, as
 * the catalog never writes two snapshots with one time), or no row when every snapshot is younger.
 */
const atTime = byShape(
  "snapshot.at_time",
  'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = ( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_time::TIMESTAMPTZ <= \'2026-12-01 10:33:46.833743+00\' ORDER BY snapshot_time::TIMESTAMPTZ DESC LIMIT 1 )',
  async (ctx, stmt) => {
    const at = timestamptzMicros(literal(stmt, 0));
    if (intLiteral(stmt, 1) < 1) return result(SNAPSHOT_COLUMNS, []);
    let best: { time: bigint; id: number; row: SqlValue[] } | null = null;
    for (const r of await rowsOf(ctx, "ducklake_snapshot")) {
      const time = big(r.snapshot_time);
      if (typeof time !== "bigint" || time > at) continue;
      const id = r.snapshot_id as number;
      if (best === null || time > best.time || (time === best.time && id > best.id)) {
        best = {
          time,
          id,
          row: [big(r.snapshot_id), big(r.schema_version), big(r.next_catalog_id), big(r.next_file_id)],
        };
      }
    }
    return result(SNAPSHOT_COLUMNS, best ? [best.row] : []);
  },
);

const schemaVersions = byShape(
  "snapshot.distinct_schema_versions",
  'SELECT DISTINCT schema_version FROM "main".ducklake_snapshot',
  async (ctx) => {
    const seen = new Set<number>();
    for (const r of await rowsOf(ctx, "ducklake_snapshot")) seen.add(r.schema_version as number);
    return result(
      [{ name: "schema_version", type: T.BIGINT }],
      [...seen].sort((a, b) => a - b).map((v) => [BigInt(v)]),
    );
  },
);

export const SNAPSHOT_READS: readonly ReadTemplate[] = [
  versions,
  latest,
  byId,
  list,
  olderThan,
  atTime,
  schemaVersions,
];
