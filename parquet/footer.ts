/**
 * Reading only a Parquet file's footer: row count, footer size and per-column facts (value and null
 * counts, compressed bytes, min/max) summed over row groups, from the file's last bytes. A loader uses it
 * to register a file it did not write without reading the data pages. Min/max are returned only where the
 * footer's values are exact in DuckDB's text form: integers, UTF-8 strings and decimals of precision <= 15
 * (hyparquet hands decimals over as doubles, exact to 15 digits); other types leave them null.
 */
import type { ColumnMetaData, FileMetaData, SchemaElement } from "hyparquet";
import { parquetMetadata } from "hyparquet";
import { ParquetInvalid } from "./errors.ts";
import { type FooterField, fieldType } from "./field-types.ts";
import { compareCodePoints } from "./stats.ts";

/** The largest footer read, in bytes: a footer beyond it is refused rather than buffered. */
export const MAX_FOOTER_BYTES = 16 * 1024 * 1024;

export interface FooterColumn {
  /** The top-level column's name. */
  name: string;
  valueCount: number;
  nullCount: number | null;
  compressedBytes: number;
  /** DuckDB's text of the smallest and largest value, or null where the footer cannot give it exactly. */
  min: string | null;
  max: string | null;
}

export interface FooterFacts {
  rowCount: number;
  footerSize: number;
  columns: FooterColumn[];
  /** Every top-level column (nested ones too) with the DuckDB type a reader gives it, in file order. */
  fields: FooterField[];
}

/** How many trailing bytes of a file hold its footer (the length word and magic included). */
export function footerLength(last8: Uint8Array): number {
  if (last8.byteLength !== 8) throw new ParquetInvalid("need the file's last 8 bytes");
  const magic = new TextDecoder().decode(last8.subarray(4));
  if (magic !== "PAR1") throw new ParquetInvalid("not a Parquet file: no PAR1 magic at the end");
  const len = new DataView(last8.buffer, last8.byteOffset, 8).getUint32(0, true);
  if (len > MAX_FOOTER_BYTES) {
    throw new ParquetInvalid(`a ${len}-byte footer exceeds the ${MAX_FOOTER_BYTES} bytes read`);
  }
  return len + 8;
}

type Kind = "int" | "string" | "decimal" | "other";

function kindOf(el: SchemaElement): Kind {
  const logical = el.logical_type?.type;
  if (el.converted_type === "DECIMAL" || logical === "DECIMAL") {
    return (el.precision ?? 99) <= 15 ? "decimal" : "other";
  }
  if (el.type === "BYTE_ARRAY" && (el.converted_type === "UTF8" || logical === "STRING")) return "string";
  if (el.type === "INT32" || el.type === "INT64") {
    const plain = el.converted_type === undefined && logical === undefined;
    const intAnnotated =
      (el.converted_type ?? "").startsWith("INT_") || (el.converted_type ?? "").startsWith("UINT_");
    return plain || intAnnotated || logical === "INTEGER" ? "int" : "other";
  }
  return "other";
}

function text(kind: Kind, el: SchemaElement, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (kind === "int" && (typeof v === "number" || typeof v === "bigint")) return String(v);
  if (kind === "string" && typeof v === "string") return v;
  if (kind === "decimal" && typeof v === "number" && Number.isFinite(v)) return v.toFixed(el.scale ?? 0);
  return null;
}

function less(kind: Kind, a: string, b: string): boolean {
  if (kind === "string") return compareCodePoints(a, b) < 0;
  if (kind === "int") return BigInt(a) < BigInt(b);
  return Number(a) < Number(b);
}

/** The footer facts from `tail`, the file's last `footerLength(...)` bytes (or the whole file). */
export function readParquetFooter(tail: Uint8Array): FooterFacts {
  if (tail.byteLength < 12) throw new ParquetInvalid("not a Parquet file: too short");
  const footerSize = footerLength(tail.subarray(tail.byteLength - 8)) - 8;
  let meta: FileMetaData;
  try {
    meta = parquetMetadata(tail.slice().buffer);
  } catch (e) {
    throw new ParquetInvalid(`not a readable Parquet footer: ${e instanceof Error ? e.message : String(e)}`);
  }
  const root = meta.schema[0];
  const top: SchemaElement[] = [];
  // Top-level primitive columns only: a nested column's leaves are not one DuckLake column stat.
  let i = 1;
  for (let c = 0; c < (root?.num_children ?? 0); c++) {
    const el = meta.schema[i];
    if (!el) throw new ParquetInvalid("schema ends early");
    top.push(el);
    let skip = 1;
    let pending = el.num_children ?? 0;
    while (pending > 0) {
      const child = meta.schema[i + skip];
      if (!child) throw new ParquetInvalid("schema ends early");
      pending += (child.num_children ?? 0) - 1;
      skip++;
    }
    i += skip;
  }
  const fields = top.map((el) => ({ name: el.name, type: fieldType(el, (el.num_children ?? 0) > 0) }));
  const columns: FooterColumn[] = [];
  for (const el of top) {
    if ((el.num_children ?? 0) > 0) continue;
    const kind = kindOf(el);
    const col: FooterColumn = {
      name: el.name,
      valueCount: 0,
      nullCount: 0,
      compressedBytes: 0,
      min: null,
      max: null,
    };
    let exact = kind !== "other";
    for (const rg of meta.row_groups) {
      const chunk = rg.columns.find((x) => x.meta_data?.path_in_schema.join(".") === el.name);
      const md: ColumnMetaData | undefined = chunk?.meta_data;
      if (!md) throw new ParquetInvalid(`row group without column '${el.name}'`);
      col.valueCount += Number(md.num_values);
      col.compressedBytes += Number(md.total_compressed_size);
      const s = md.statistics;
      if (col.nullCount !== null)
        col.nullCount = s?.null_count === undefined ? null : col.nullCount + Number(s.null_count);
      const lo = text(kind, el, s?.min_value ?? s?.min);
      const hi = text(kind, el, s?.max_value ?? s?.max);
      const groupHasValues = Number(md.num_values) > Number(s?.null_count ?? 0);
      if (!groupHasValues) continue;
      if (lo === null || hi === null) {
        exact = false;
        continue;
      }
      if (col.min === null || less(kind, lo, col.min)) col.min = lo;
      if (col.max === null || less(kind, col.max, hi)) col.max = hi;
    }
    if (!exact) {
      col.min = null;
      col.max = null;
    }
    columns.push(col);
  }
  return { rowCount: Number(meta.num_rows), footerSize, columns, fields };
}
