/**
 * parquet/: a leaf that writes and reads Parquet files DuckDB reads back with the exact types. No
 * DuckLake rules: mapping DuckLake column types to Parquet types and stats to catalog strings is
 * `catalog/`'s.
 */
export * from "./errors.ts";
export { type FooterField, fieldType } from "./field-types.ts";
export {
  type FooterColumn,
  type FooterFacts,
  footerLength,
  MAX_FOOTER_BYTES,
  readParquetFooter,
} from "./footer.ts";
export * from "./limits.ts";
export { type ReadFile, type ReadOptions, readParquet } from "./read.ts";
export { compareCodePoints } from "./stats.ts";
export * from "./types.ts";
export { type PacedWriteOptions, type WriteOptions, writeParquet, writeParquetPaced } from "./write.ts";
