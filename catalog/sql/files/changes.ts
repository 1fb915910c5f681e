/**
 * `ducklake_table_changes` over files: the data files inserted in a snapshot range (`changes.inserted_files`)
 * and the files whose rows were deleted in it (`changes.deleted_files`: delete files begun by the end with
 * the delete file each replaced, data files ended in the range with their last delete file, and — when the
 * table has an inlined-delete table — files with inlined deletes in the range, their deletions listed).
 * Each answers the SQL as written: the literals select rows, the joins are done here.
 */
import { shownRowIdStart } from "../../reads/ducklake-tables.ts";
import type { DataFileRecord, DeleteFileRecord } from "../../records.ts";
import type { Statement } from "../lexer.ts";
import type { ReadTemplate, SqlReadContext } from "../reads.ts";
import { listOf, type SqlColumn, type SqlResult, type SqlValue, structOf, T } from "../result.ts";
import { at, big, col, filesOf, inlinedNameIn, intLiterals, requireInlined, shapeOfSql } from "./common.ts";

const INSERTED = shapeOfSql(
  `SELECT data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, data.row_id_start, data.begin_snapshot, data.partial_max, data.mapping_id, del.path AS del_path, del.path_is_relative AS del_path_is_relative, del.file_size_bytes AS del_file_size_bytes, del.footer_size AS del_footer_size, del.format AS del_format FROM "main".ducklake_data_file data, ( SELECT CAST(NULL AS VARCHAR) path, CAST(NULL AS BOOLEAN) path_is_relative, CAST(NULL AS BIGINT) file_size_bytes, CAST(NULL AS BIGINT) footer_size, CAST(NULL AS VARCHAR) encryption_key, CAST(NULL AS VARCHAR) format ) del WHERE data.table_id=1 AND data.begin_snapshot <= 4 AND ( (data.begin_snapshot >= 2) OR (data.partial_max IS NOT NULL AND data.partial_max >= 2) )`,
);

const inserted: ReadTemplate = {
  name: "changes.inserted_files",
  matches: (s) => s === INSERTED,
  answer: async (ctx, stmt) => {
    const lits = intLiterals(stmt);
    const [t, end, from, partialFrom] = [0, 1, 2, 3].map((k) => at(lits, k)) as [
      number,
      number,
      number,
      number,
    ];
    const files = (await filesOf(ctx, t)).data_files.filter(
      (f) =>
        f.table_id === t &&
        f.begin_snapshot <= end &&
        (f.begin_snapshot >= from || (f.partial_max !== null && f.partial_max >= partialFrom)),
    );
    const columns: SqlColumn[] = [
      col("data_path", T.VARCHAR),
      col("data_path_is_relative", T.BOOLEAN),
      col("data_file_size_bytes", T.BIGINT),
      col("data_footer_size", T.BIGINT),
      col("row_id_start", T.BIGINT),
      col("begin_snapshot", T.BIGINT),
      col("partial_max", T.BIGINT),
      col("mapping_id", T.BIGINT),
      col("del_path", T.VARCHAR),
      col("del_path_is_relative", T.BOOLEAN),
      col("del_file_size_bytes", T.BIGINT),
      col("del_footer_size", T.BIGINT),
      col("del_format", T.VARCHAR),
    ];
    const rows = files.map((f): SqlValue[] => [
      f.path,
      f.path_is_relative,
      big(f.file_size_bytes),
      big(f.footer_size),
      big(shownRowIdStart(f)),
      big(f.begin_snapshot),
      big(f.partial_max),
      big(f.mapping_id),
      null,
      null,
      null,
      null,
      null,
    ]);
    return { columns, rows };
  },
};

const MAIN_RESULTS = `main_results AS ( SELECT data.data_file_id, data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, data.row_id_start, data.record_count, data.mapping_id, current_delete.path AS current_delete_path, current_delete.path_is_relative AS current_delete_path_is_relative, current_delete.file_size_bytes AS current_delete_file_size_bytes, current_delete.footer_size AS current_delete_footer_size, current_delete.format AS current_delete_format, previous_delete.path AS previous_delete_path, previous_delete.path_is_relative AS previous_delete_path_is_relative, previous_delete.file_size_bytes AS previous_delete_file_size_bytes, previous_delete.footer_size AS previous_delete_footer_size, previous_delete.format AS previous_delete_format, current_delete.begin_snapshot FROM ( SELECT data_file_id, begin_snapshot, path, path_is_relative, file_size_bytes, footer_size, encryption_key, format FROM "main".ducklake_delete_file WHERE table_id = 1 AND begin_snapshot <= 4 ) AS current_delete LEFT JOIN LATERAL ( SELECT DISTINCT ON (data_file_id) data_file_id, path, path_is_relative, file_size_bytes, footer_size, encryption_key, format FROM "main".ducklake_delete_file WHERE table_id = 1 AND begin_snapshot < 2 ORDER BY data_file_id, begin_snapshot DESC ) AS previous_delete USING (data_file_id) JOIN ( SELECT * FROM "main".ducklake_data_file data WHERE table_id = 1 ) AS data USING (data_file_id) UNION ALL SELECT data.data_file_id, data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, data.row_id_start, data.record_count, data.mapping_id, current_delete.path AS current_delete_path, current_delete.path_is_relative AS current_delete_path_is_relative, current_delete.file_size_bytes AS current_delete_file_size_bytes, current_delete.footer_size AS current_delete_footer_size, current_delete.format AS current_delete_format, previous_delete.path AS previous_delete_path, previous_delete.path_is_relative AS previous_delete_path_is_relative, previous_delete.file_size_bytes AS previous_delete_file_size_bytes, previous_delete.footer_size AS previous_delete_footer_size, previous_delete.format AS previous_delete_format, data.end_snapshot FROM ( SELECT * FROM "main".ducklake_data_file WHERE table_id = 1 AND end_snapshot >= 2 AND end_snapshot <= 4 ) AS data LEFT JOIN LATERAL ( SELECT DISTINCT ON (data_file_id) data_file_id, path, path_is_relative, file_size_bytes, footer_size, encryption_key, format FROM "main".ducklake_delete_file WHERE table_id = 1 AND begin_snapshot < data.end_snapshot ORDER BY data_file_id, begin_snapshot DESC ) AS previous_delete USING (data_file_id), ( SELECT NULL path, NULL path_is_relative, NULL file_size_bytes, NULL footer_size, NULL encryption_key, NULL format ) current_delete`;

const DELETED_NO_INLINED = shapeOfSql(
  `WITH ${MAIN_RESULTS} ) SELECT main_results.*, NULL as deletions FROM main_results`,
);
const DELETED_WITH_INLINED = shapeOfSql(
  `WITH inlined_dels AS ( SELECT file_id, LIST(STRUCT_PACK(row_id := row_id, snapshot_id := begin_snapshot)) as deletions, MIN(begin_snapshot) as min_snapshot FROM "main".ducklake_inlined_delete_1 WHERE begin_snapshot >= 2 AND begin_snapshot <= 7 GROUP BY file_id ), ${MAIN_RESULTS} UNION ALL SELECT data.data_file_id, data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, data.row_id_start, data.record_count, data.mapping_id, NULL path, NULL path_is_relative, NULL file_size_bytes, NULL footer_size, NULL format, NULL path, NULL path_is_relative, NULL file_size_bytes, NULL footer_size, NULL format, inlined_dels.min_snapshot FROM "main".ducklake_data_file data JOIN inlined_dels ON data.data_file_id = inlined_dels.file_id WHERE data.table_id = 1 AND data.data_file_id NOT IN ( SELECT data_file_id FROM "main".ducklake_delete_file WHERE table_id = 1 AND begin_snapshot <= 7 ) AND (data.end_snapshot IS NULL OR data.end_snapshot < 2 OR data.end_snapshot > 7) ) SELECT main_results.*, inlined_dels.deletions FROM main_results LEFT JOIN inlined_dels ON main_results.data_file_id = inlined_dels.file_id`,
);

const DELETION = structOf({ row_id: T.BIGINT, snapshot_id: T.BIGINT });

function deletedColumns(inlined: boolean): SqlColumn[] {
  const file = (p: string): SqlColumn[] => [
    col(`${p}_path`, T.VARCHAR),
    col(`${p}_path_is_relative`, T.BOOLEAN),
    col(`${p}_file_size_bytes`, T.BIGINT),
    col(`${p}_footer_size`, T.BIGINT),
  ];
  return [
    col("data_file_id", T.BIGINT),
    ...file("data"),
    col("row_id_start", T.BIGINT),
    col("record_count", T.BIGINT),
    col("mapping_id", T.BIGINT),
    ...file("current_delete"),
    col("current_delete_format", T.VARCHAR),
    ...file("previous_delete"),
    col("previous_delete_format", T.VARCHAR),
    col("begin_snapshot", T.BIGINT),
    col("deletions", inlined ? listOf(DELETION) : T.INTEGER),
  ];
}

const delCells = (d: DeleteFileRecord | undefined): SqlValue[] =>
  d
    ? [d.path, d.path_is_relative, big(d.file_size_bytes), big(d.footer_size), d.format]
    : [null, null, null, null, null];

/** DISTINCT ON (data_file_id) … ORDER BY data_file_id, begin_snapshot DESC: the latest-begun one. */
function latestBefore(
  deletes: DeleteFileRecord[],
  dataFileId: number,
  before: number,
): DeleteFileRecord | undefined {
  return deletes
    .filter((d) => d.data_file_id === dataFileId && d.begin_snapshot < before)
    .sort((a, b) => b.begin_snapshot - a.begin_snapshot)[0];
}

async function deleted(ctx: SqlReadContext, stmt: Statement, inlined: boolean): Promise<SqlResult> {
  const lits = intLiterals(stmt);
  const off = inlined ? 2 : 0;
  const l = (k: number): number => at(lits, off + k);
  const t = l(0);
  const files = await filesOf(ctx, t);
  const deletes = files.delete_files.filter((d) => d.table_id === t);
  const data = files.data_files.filter((f) => f.table_id === t);
  const byId = new Map(data.map((f) => [f.data_file_id, f]));
  type Out = {
    f: DataFileRecord;
    cur: DeleteFileRecord | undefined;
    prev: DeleteFileRecord | undefined;
    snap: number;
  };
  const out: Out[] = [];
  // Delete files begun by the end, with the one each data file had before the start.
  for (const cur of deletes.filter((d) => d.begin_snapshot <= l(1))) {
    const f = byId.get(cur.data_file_id);
    if (f)
      out.push({ f, cur, prev: latestBefore(deletes, cur.data_file_id, l(3)), snap: cur.begin_snapshot });
  }
  // Data files ended in the range, with their last delete file before the end.
  for (const f of data.filter(
    (x) => x.end_snapshot !== null && x.end_snapshot >= l(6) && x.end_snapshot <= l(7),
  )) {
    out.push({
      f,
      cur: undefined,
      prev: latestBefore(deletes, f.data_file_id, f.end_snapshot as number),
      snap: f.end_snapshot as number,
    });
  }
  const deletions = new Map<number, { rows: { row_id: number; snapshot_id: number }[]; min: number }>();
  if (inlined) {
    const table = await requireInlined(ctx, inlinedNameIn(stmt, "delete"));
    const [from, to] = [at(lits, 0), at(lits, 1)];
    for (const r of table.rows) {
      const b = Number(r.begin_snapshot);
      if (b < from || b > to) continue;
      const id = Number(r.file_id);
      const e = deletions.get(id) ?? { rows: [], min: b };
      e.rows.push({ row_id: Number(r.row_id), snapshot_id: b });
      e.min = Math.min(e.min, b);
      deletions.set(id, e);
    }
    // Files with inlined deletes in the range and no delete file by the end, not ended in the range.
    const [t2, t3, e1, b1, e2] = [9, 10, 11, 12, 13].map(l) as [number, number, number, number, number];
    const withDeleteFile = new Set(
      files.delete_files
        .filter((d) => d.table_id === t3 && d.begin_snapshot <= e1)
        .map((d) => d.data_file_id),
    );
    for (const f of files.data_files) {
      const e = deletions.get(f.data_file_id);
      if (!e || f.table_id !== t2 || withDeleteFile.has(f.data_file_id)) continue;
      if (f.end_snapshot !== null && f.end_snapshot >= b1 && f.end_snapshot <= e2) continue;
      out.push({ f, cur: undefined, prev: undefined, snap: e.min });
    }
  }
  const rows = out.map(({ f, cur, prev, snap }): SqlValue[] => {
    const e = deletions.get(f.data_file_id);
    const list: SqlValue = e
      ? [...e.rows]
          .sort((a, b) => a.snapshot_id - b.snapshot_id || a.row_id - b.row_id)
          .map((x) => ({ row_id: BigInt(x.row_id), snapshot_id: BigInt(x.snapshot_id) }))
      : null;
    return [
      big(f.data_file_id),
      f.path,
      f.path_is_relative,
      big(f.file_size_bytes),
      big(f.footer_size),
      big(shownRowIdStart(f)),
      big(f.record_count),
      big(f.mapping_id),
      ...delCells(cur),
      ...delCells(prev),
      big(snap),
      list,
    ];
  });
  return { columns: deletedColumns(inlined), rows };
}

const deletedTemplate = (name: string, shape: string, inlined: boolean): ReadTemplate => ({
  name,
  matches: (s) => s === shape,
  answer: (ctx, stmt) => deleted(ctx, stmt, inlined),
});

export const CHANGES_READS: readonly ReadTemplate[] = [
  inserted,
  deletedTemplate("changes.deleted_files", DELETED_NO_INLINED, false),
  deletedTemplate("changes.deleted_files_with_inlined_deletes", DELETED_WITH_INLINED, true),
];
