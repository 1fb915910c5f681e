/**
 * The first rows of a Parquet file for display, read through ranged reads (only the footer and the
 * first row group's pages are fetched), so a viewer can preview a large file without downloading it.
 * Values are display strings: bigint, dates and bytes have no JSON form, and a preview only shows them.
 */
import { type AsyncBuffer, parquetMetadataAsync, parquetReadObjects } from "hyparquet";

/** The most rows a preview reads. */
export const MAX_PREVIEW_ROWS = 100;

export interface Preview {
  columns: string[];
  rows: string[][];
  totalRows: number;
}

function show(v: unknown): string {
  if (v === null || v === undefined) return "∅";
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array)
    return `0x${[...v.subarray(0, 32)].map((b) => b.toString(16).padStart(2, "0")).join("")}${v.length > 32 ? "…" : ""}`;
  if (typeof v === "object") return JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));
  return String(v);
}

export async function previewParquet(file: AsyncBuffer, limit = 20): Promise<Preview> {
  const n = Math.max(0, Math.min(limit, MAX_PREVIEW_ROWS));
  const metadata = await parquetMetadataAsync(file);
  // Top-level names: walk the depth-first schema by num_children.
  let i = 1;
  const names: string[] = [];
  const root = metadata.schema[0];
  for (let c = 0; c < (root?.num_children ?? 0); c++) {
    const el = metadata.schema[i];
    if (!el) break;
    names.push(el.name);
    let pending = el.num_children ?? 0;
    i++;
    while (pending > 0) {
      pending += (metadata.schema[i]?.num_children ?? 0) - 1;
      i++;
    }
  }
  const rows = n === 0 ? [] : await parquetReadObjects({ file, metadata, rowStart: 0, rowEnd: n });
  return {
    columns: names,
    rows: rows.map((r) => names.map((c) => show((r as Record<string, unknown>)[c]))),
    totalRows: Number(metadata.num_rows),
  };
}
