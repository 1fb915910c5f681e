/**
 * Read templates of DuckLake's metadata (catalog load, snapshots, schemas, tables, views, macros,
 * partitions, sorts, stats, options, inlined-table registry, maintenance listings other than files).
 * One file per family under `metadata/`; decision record `docs/decisions/0210-quack-metadata-reads.md`.
 */
import { ATTACH_READS } from "./metadata/attach.ts";
import { MAINTENANCE_READS } from "./metadata/maintenance.ts";
import { OPTION_READS } from "./metadata/options.ts";
import { PARTITION_SORT_READS } from "./metadata/partitions-sorts.ts";
import { SCHEMA_TABLE_READS } from "./metadata/schemas-tables.ts";
import { SNAPSHOT_READS } from "./metadata/snapshots.ts";
import { STATS_READS } from "./metadata/stats.ts";
import { VIEW_MACRO_READS } from "./metadata/views-macros.ts";
import type { ReadTemplate } from "./reads.ts";

export const METADATA_READS: readonly ReadTemplate[] = [
  ...ATTACH_READS,
  ...SNAPSHOT_READS,
  ...SCHEMA_TABLE_READS,
  ...VIEW_MACRO_READS,
  ...PARTITION_SORT_READS,
  ...STATS_READS,
  ...OPTION_READS,
  ...MAINTENANCE_READS,
];
