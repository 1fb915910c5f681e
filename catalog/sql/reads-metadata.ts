/**
 * Read templates of DuckLake's metadata (catalog load, snapshots, schemas, tables, views, macros,
 * partitions, sorts, stats, options, inlined-table registry, maintenance listings other than files).
 */
import type { ReadTemplate } from "./reads.ts";

export const METADATA_READS: readonly ReadTemplate[] = [];
