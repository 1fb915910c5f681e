/**
 * Read templates of DuckLake's file and row metadata (data files, delete files, file column stats,
 * inlined data and inlined deletes, row counts, table changes). Each answering function lives in
 * `files/` (decision record `docs/decisions/0220-quack-file-reads.md`).
 */
import { CHANGES_READS } from "./files/changes.ts";
import { CLEANUP_READS } from "./files/cleanup.ts";
import { DATA_FILE_READS } from "./files/data-files.ts";
import { INLINED_DATA_READS } from "./files/inlined-data.ts";
import { INLINED_DELETE_READS } from "./files/inlined-deletes.ts";
import { MAINTENANCE_READS } from "./files/maintenance.ts";
import { ORPHAN_LISTING_READS } from "./files/orphan-listing.ts";
import { REWRITE_READS } from "./files/rewrite.ts";
import type { ReadTemplate } from "./reads.ts";

export const FILE_READS: readonly ReadTemplate[] = [
  ...DATA_FILE_READS,
  ...INLINED_DATA_READS,
  ...INLINED_DELETE_READS,
  ...CHANGES_READS,
  ...MAINTENANCE_READS,
  ...CLEANUP_READS,
  ...ORPHAN_LISTING_READS,
  ...REWRITE_READS,
];
