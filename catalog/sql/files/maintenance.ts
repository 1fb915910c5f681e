/**
 * File listings of DuckLake's maintenance calls: the flush's inlined file deletes with their data file and
 * live delete file (`ducklake_flush_inlined_data`), the merge candidates with their schema version, delete
 * files and partition values (`ducklake_merge_adjacent_files`), and the ended files no snapshot can see
 * any more (`ducklake_expire_snapshots`).
 */
import { resolveSnapshot } from "../../head.ts";
import { ducklakeTable, shownRowIdStart } from "../../reads/ducklake-tables.ts";
import type { ReadTemplate } from "../reads.ts";
import { listOf, type SqlValue, T } from "../result.ts";
import {
  at,
  big,
  boundLiterals,
  col,
  filesOf,
  inlinedNameIn,
  intLiterals,
  requireInlined,
  shapeOfSql,
  tableIdOfInlined,
  visibleWhere,
} from "./common.ts";

const FLUSH_DELETES = shapeOfSql(
  `SELECT del.file_id, data.path, data.path_is_relative, del.row_id, del.begin_snapshot, existing_del.delete_file_id, existing_del.path as del_path, existing_del.path_is_relative as del_path_is_relative, existing_del.begin_snapshot as del_begin_snapshot, existing_del.encryption_key as del_encryption_key, existing_del.format as del_format FROM "main".ducklake_inlined_delete_1 del JOIN "main".ducklake_data_file data ON del.file_id = data.data_file_id LEFT JOIN ( SELECT * FROM "main".ducklake_delete_file WHERE table_id = 1 AND 8 >= begin_snapshot AND (8 < end_snapshot OR end_snapshot IS NULL) ) existing_del ON del.file_id = existing_del.data_file_id`,
);

const flushDeletes: ReadTemplate = {
  name: "maintenance.flush_inlined_deletes",
  matches: (s) => s === FLUSH_DELETES,
  answer: async (ctx, stmt) => {
    const name = inlinedNameIn(stmt, "delete");
    const table = await requireInlined(ctx, name);
    const lits = intLiterals(stmt);
    const [t, s, s2] = [0, 1, 2].map((k) => at(lits, k)) as [number, number, number];
    // Data file ids are lake-wide; the inlined-delete table's own table holds its files.
    const own = await filesOf(ctx, tableIdOfInlined(name));
    const dels = (await filesOf(ctx, t)).delete_files.filter(
      (d) => d.table_id === t && visibleWhere(s, s2)(d),
    );
    const rows: SqlValue[][] = [];
    for (const r of table.rows) {
      const fileId = Number(r.file_id);
      for (const f of own.data_files.filter((x) => x.data_file_id === fileId)) {
        const matched = dels.filter((d) => d.data_file_id === fileId);
        const base: SqlValue[] = [
          BigInt(fileId),
          f.path,
          f.path_is_relative,
          BigInt(Number(r.row_id)),
          BigInt(Number(r.begin_snapshot)),
        ];
        if (matched.length === 0) rows.push([...base, null, null, null, null, null, null]);
        for (const d of matched)
          rows.push([
            ...base,
            big(d.delete_file_id),
            d.path,
            d.path_is_relative,
            big(d.begin_snapshot),
            d.encryption_key,
            d.format,
          ]);
      }
    }
    return {
      columns: [
        col("file_id", T.BIGINT),
        col("path", T.VARCHAR),
        col("path_is_relative", T.BOOLEAN),
        col("row_id", T.BIGINT),
        col("begin_snapshot", T.BIGINT),
        col("delete_file_id", T.BIGINT),
        col("del_path", T.VARCHAR),
        col("del_path_is_relative", T.BOOLEAN),
        col("del_begin_snapshot", T.BIGINT),
        col("del_encryption_key", T.VARCHAR),
        col("del_format", T.VARCHAR),
      ],
      rows,
    };
  },
};

/** merge_adjacent_files' candidates: the live files of a table below a size bound, with their deletes. */
const MERGE_CANDIDATES = shapeOfSql(
  `WITH snapshot_ranges AS ( SELECT begin_snapshot, COALESCE( LEAD(begin_snapshot) OVER (ORDER BY begin_snapshot), 9223372036854775807 ) AS end_snapshot, schema_version FROM "main".ducklake_schema_versions WHERE table_id=1 ORDER BY begin_snapshot ) SELECT data.data_file_id, data.record_count, data.row_id_start, data.begin_snapshot, data.end_snapshot, data.mapping_id, sr.schema_version , data.partial_max, data.partition_id, partition_info.keys, data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, del.data_file_id AS del_data_file_id,del.delete_file_id AS del_delete_file_id, del.delete_count, del.begin_snapshot AS del_begin_snapshot, del.end_snapshot AS del_end_snapshot, del.partial_max AS del_partial_max, del.path AS del_path, del.path_is_relative AS del_path_is_relative, del.file_size_bytes AS del_file_size_bytes, del.footer_size AS del_footer_size, del.format AS del_format FROM "main".ducklake_data_file data LEFT JOIN snapshot_ranges sr ON data.begin_snapshot >= sr.begin_snapshot AND data.begin_snapshot < sr.end_snapshot LEFT JOIN ( SELECT * FROM "main".ducklake_delete_file WHERE table_id=1 ) del USING (data_file_id) LEFT JOIN ( SELECT data_file_id, ARRAY_AGG(partition_value ORDER BY partition_key_index) keys FROM "main".ducklake_file_partition_value GROUP BY data_file_id ) partition_info USING (data_file_id) WHERE data.table_id=1 AND data.file_size_bytes < 536870912 AND data.end_snapshot IS NULL ORDER BY data.begin_snapshot, data.row_id_start, data.data_file_id, del.begin_snapshot`,
);
/** rewrite_data_files' candidates: the same listing without the size bound. */
const REWRITE_CANDIDATES = shapeOfSql(
  `WITH snapshot_ranges AS ( SELECT begin_snapshot, COALESCE( LEAD(begin_snapshot) OVER (ORDER BY begin_snapshot), 9223372036854775807 ) AS end_snapshot, schema_version FROM "main".ducklake_schema_versions WHERE table_id=1 ORDER BY begin_snapshot ) SELECT data.data_file_id, data.record_count, data.row_id_start, data.begin_snapshot, data.end_snapshot, data.mapping_id, sr.schema_version , data.partial_max, data.partition_id, partition_info.keys, data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, del.data_file_id AS del_data_file_id,del.delete_file_id AS del_delete_file_id, del.delete_count, del.begin_snapshot AS del_begin_snapshot, del.end_snapshot AS del_end_snapshot, del.partial_max AS del_partial_max, del.path AS del_path, del.path_is_relative AS del_path_is_relative, del.file_size_bytes AS del_file_size_bytes, del.footer_size AS del_footer_size, del.format AS del_format FROM "main".ducklake_data_file data LEFT JOIN snapshot_ranges sr ON data.begin_snapshot >= sr.begin_snapshot AND data.begin_snapshot < sr.end_snapshot LEFT JOIN ( SELECT * FROM "main".ducklake_delete_file WHERE table_id=1 ) del USING (data_file_id) LEFT JOIN ( SELECT data_file_id, ARRAY_AGG(partition_value ORDER BY partition_key_index) keys FROM "main".ducklake_file_partition_value GROUP BY data_file_id ) partition_info USING (data_file_id) WHERE data.table_id=1 AND data.end_snapshot is null ORDER BY data.begin_snapshot, data.row_id_start, data.data_file_id, del.begin_snapshot`,
);

const candidates = (name: string, shape: string, sizeBound: boolean): ReadTemplate => ({
  name,
  matches: (s) => s === shape,
  answer: async (ctx, stmt) => {
    const lits = boundLiterals(stmt);
    // Literals: the open range's end, the schema-version table, the delete table, the data table, the
    // size bound (merge only; without it every live file is a candidate).
    const [last, svTable, delTable, t] = [0, 1, 2, 3].map((k) => at(lits, k)) as [
      number,
      number,
      number,
      number,
    ];
    const maxBytes = sizeBound ? at(lits, 4) : Number.POSITIVE_INFINITY;
    const view = ctx.view;
    const versions = view
      ? (await ducklakeTable(view, "ducklake_schema_versions", (await resolveSnapshot(view)).snapshot_id))
          .filter((r) => r.table_id === svTable)
          .map((r) => ({ begin: Number(r.begin_snapshot), sv: Number(r.schema_version) }))
          .sort((a, b) => a.begin - b.begin)
      : [];
    const ranges = versions.map((v, i) => ({ ...v, end: versions[i + 1]?.begin ?? last }));
    const dels = (await filesOf(ctx, delTable)).delete_files.filter((d) => d.table_id === delTable);
    const files = (await filesOf(ctx, t)).data_files.filter(
      (f) => f.table_id === t && f.file_size_bytes < maxBytes && f.end_snapshot === null,
    );
    type Out = { key: number[]; row: SqlValue[] };
    const out: Out[] = [];
    for (const f of files) {
      const keys: SqlValue = f.x_partition_values.length
        ? [...f.x_partition_values]
            .sort((a, b) => a.partition_key_index - b.partition_key_index)
            .map((p) => p.partition_value)
        : null;
      const head: SqlValue[] = [
        big(f.data_file_id),
        big(f.record_count),
        big(shownRowIdStart(f)),
        big(f.begin_snapshot),
        big(f.end_snapshot),
        big(f.mapping_id),
      ];
      const fileTail: SqlValue[] = [
        big(f.partial_max),
        big(f.partition_id),
        keys,
        f.path,
        f.path_is_relative,
        big(f.file_size_bytes),
        big(f.footer_size),
      ];
      const srs = ranges.filter((r) => f.begin_snapshot >= r.begin && f.begin_snapshot < r.end);
      const matchedSr = srs.length ? srs : [null];
      const matchedDel = dels.filter((d) => d.data_file_id === f.data_file_id);
      for (const sr of matchedSr) {
        const withSv = [...head, sr ? BigInt(sr.sv) : null, ...fileTail];
        if (matchedDel.length === 0)
          out.push({
            key: [f.begin_snapshot, f.row_id_start, f.data_file_id, Number.POSITIVE_INFINITY],
            row: [...withSv, ...Array<SqlValue>(11).fill(null)],
          });
        for (const d of matchedDel)
          out.push({
            key: [f.begin_snapshot, f.row_id_start, f.data_file_id, d.begin_snapshot],
            row: [
              ...withSv,
              big(d.data_file_id),
              big(d.delete_file_id),
              big(d.delete_count),
              big(d.begin_snapshot),
              big(d.end_snapshot),
              big(d.partial_max),
              d.path,
              d.path_is_relative,
              big(d.file_size_bytes),
              big(d.footer_size),
              d.format,
            ],
          });
      }
    }
    out.sort((a, b) => {
      for (let i = 0; i < 4; i++) {
        const d = (a.key[i] ?? 0) - (b.key[i] ?? 0);
        if (d !== 0 && !Number.isNaN(d)) return d;
      }
      return 0;
    });
    return {
      columns: [
        col("data_file_id", T.BIGINT),
        col("record_count", T.BIGINT),
        col("row_id_start", T.BIGINT),
        col("begin_snapshot", T.BIGINT),
        col("end_snapshot", T.BIGINT),
        col("mapping_id", T.BIGINT),
        col("schema_version", T.BIGINT),
        col("partial_max", T.BIGINT),
        col("partition_id", T.BIGINT),
        col("keys", listOf(T.VARCHAR)),
        col("data_path", T.VARCHAR),
        col("data_path_is_relative", T.BOOLEAN),
        col("data_file_size_bytes", T.BIGINT),
        col("data_footer_size", T.BIGINT),
        col("del_data_file_id", T.BIGINT),
        col("del_delete_file_id", T.BIGINT),
        col("delete_count", T.BIGINT),
        col("del_begin_snapshot", T.BIGINT),
        col("del_end_snapshot", T.BIGINT),
        col("del_partial_max", T.BIGINT),
        col("del_path", T.VARCHAR),
        col("del_path_is_relative", T.BOOLEAN),
        col("del_file_size_bytes", T.BIGINT),
        col("del_footer_size", T.BIGINT),
        col("del_format", T.VARCHAR),
      ],
      rows: out.map((o) => o.row),
    };
  },
});

const UNREACHABLE = (table: "ducklake_data_file" | "ducklake_delete_file", id: string): string =>
  shapeOfSql(
    `SELECT ${id}, table_id, path, path_is_relative FROM "main".${table} WHERE (end_snapshot IS NOT NULL AND NOT EXISTS( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= begin_snapshot AND snapshot_id < end_snapshot ))`,
  );

const unreachable = (
  table: "ducklake_data_file" | "ducklake_delete_file",
  id: "data_file_id" | "delete_file_id",
): ReadTemplate => {
  const shape = UNREACHABLE(table, id);
  return {
    name: `maintenance.unreachable_${table === "ducklake_data_file" ? "data" : "delete"}_files`,
    matches: (s) => s === shape,
    answer: async (ctx) => {
      const view = ctx.view;
      const columns = [
        col(id, T.BIGINT),
        col("table_id", T.BIGINT),
        col("path", T.VARCHAR),
        col("path_is_relative", T.BOOLEAN),
      ];
      if (!view) return { columns, rows: [] };
      // Lake-wide by nature (expire runs over every table): the full listings are read once.
      const snapshots = (await ducklakeTable(view, "ducklake_snapshot")).map((r) => Number(r.snapshot_id));
      const rows = (await ducklakeTable(view, table))
        .filter((r) => {
          if (r.end_snapshot === null) return false;
          const b = Number(r.begin_snapshot);
          const e = Number(r.end_snapshot);
          return !snapshots.some((s) => s >= b && s < e);
        })
        .map((r): SqlValue[] => [
          big(Number(r[id])),
          big(Number(r.table_id)),
          r.path as string,
          r.path_is_relative as boolean,
        ]);
      return { columns, rows };
    },
  };
};

export const MAINTENANCE_READS: readonly ReadTemplate[] = [
  flushDeletes,
  candidates("maintenance.merge_candidates", MERGE_CANDIDATES, true),
  candidates("maintenance.rewrite_candidates", REWRITE_CANDIDATES, false),
  unreachable("ducklake_data_file", "data_file_id"),
  unreachable("ducklake_delete_file", "delete_file_id"),
];
