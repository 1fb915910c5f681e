/**
 * Read templates of DuckLake's file and row metadata (data files, delete files, file column stats,
 * inlined data and inlined deletes, row counts, table changes).
 */
import type { ReadTemplate } from "./reads.ts";

export const FILE_READS: readonly ReadTemplate[] = [];
