/**
 * How many rows a table holds at a scan plan's snapshot, counted from the plan's records alone, without
 * reading a file (issue 30 item 9: the export's summary counts user rows). Exact or nothing: a file whose
 * visible count needs its bytes — a partial file (`snapshot_filter`), a partial delete file, or deletes split
 * between a delete file and inlined deletes that could overlap — answers null rather than a guess
 * (docs/decisions/0653-export-user-rows.md).
 */

/** The fields of a scan-plan file (`GET …/plan`) the count reads. */
export interface CountedFile {
  record_count: number;
  snapshot_filter: number | null;
  delete_file: { delete_count: number; snapshot_filter?: number | null } | null;
  inlined_deleted_positions: readonly number[];
}

/** Visible rows of one data file at the plan's snapshot, or null when only its bytes can tell. */
export function fileRowCount(f: CountedFile): number | null {
  if (f.snapshot_filter !== null) return null;
  const d = f.delete_file;
  if (d === null) return f.record_count - new Set(f.inlined_deleted_positions).size;
  if ((d.snapshot_filter ?? null) !== null || f.inlined_deleted_positions.length > 0) return null;
  return f.record_count - d.delete_count;
}

/**
 * Rows of a table: its files' visible rows plus its inlined rows (the plan lists only those visible at its
 * snapshot). `files` is every page's files; null when any file's count is not exact.
 */
export function planRowCount(files: readonly CountedFile[], inlinedRows: number): number | null {
  let n = inlinedRows;
  for (const f of files) {
    const c = fileRowCount(f);
    if (c === null) return null;
    n += c;
  }
  return n;
}
