/**
 * Scan-plan pruning: a file is dropped only when its column statistics prove no row can match every
 * filter. Values compare in the column's DuckLake type (`stat-order.ts`: exact integers and decimals,
 * code-point text), filter column names fold as every catalog name does (`foldName`), and unknown or
 * incomparable statistics never prune: a file is kept when in doubt. Decision:
 * docs/decisions/0104-scan-pruning.md.
 */
import { InvalidRequest, quoteName } from "../errors.ts";
import { foldName } from "../keys.ts";
import type { ColumnRecord } from "../records.ts";
import { compareStatValues, isComparableValue } from "../stat-order.ts";
import type { PlannedFile, ScanPlan } from "./files-at.ts";

export const FILTER_OPS = ["eq", "lt", "lte", "gt", "gte"] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** `column op value`: the column is a top-level column name, the value a stats text of its type. */
export interface StatsFilter {
  column: string;
  op: FilterOp;
  value: string;
}

interface BoundFilter {
  column: ColumnRecord;
  op: FilterOp;
  value: string;
}

/** Could some value v in [min, max] satisfy `v op value`? A missing or incomparable bound: yes. */
function rangeMayMatch(type: string, min: string | null, max: string | null, f: BoundFilter): boolean {
  // Each test is "the bound proves the opposite"; an unknown comparison proves nothing.
  const cmp = (bound: string | null): number | undefined =>
    bound === null ? undefined : compareStatValues(type, bound, f.value);
  const lo = cmp(min);
  const hi = cmp(max);
  switch (f.op) {
    case "eq":
      return !(lo !== undefined && lo > 0) && !(hi !== undefined && hi < 0);
    case "lt":
      return !(lo !== undefined && lo >= 0);
    case "lte":
      return !(lo !== undefined && lo > 0);
    case "gt":
      return !(hi !== undefined && hi <= 0);
    case "gte":
      return !(hi !== undefined && hi < 0);
  }
}

/** Resolves each filter's column (folded name, top level) and checks its value against the column type. */
function bind(columns: readonly ColumnRecord[], filters: readonly StatsFilter[]): BoundFilter[] {
  return filters.map((f) => {
    if (!(FILTER_OPS as readonly string[]).includes(f.op)) {
      throw new InvalidRequest(`filter op ${quoteName(f.op)} must be one of ${FILTER_OPS.join(", ")}`);
    }
    const want = foldName(f.column);
    const column = columns.find((c) => c.parent_column === null && foldName(c.column_name) === want);
    if (!column) {
      throw new InvalidRequest(`filter column ${quoteName(f.column)} is not a top-level column of the table`);
    }
    if (!isComparableValue(column.column_type, f.value)) {
      throw new InvalidRequest(
        `filter value ${quoteName(f.value)} is not a ${column.column_type} value (column ${quoteName(column.column_name)})`,
      );
    }
    return { column, op: f.op, value: f.value };
  });
}

/** The plan's files that may hold a row matching every filter, and how many were dropped. */
export function pruneFiles(
  plan: Pick<ScanPlan, "columns" | "files">,
  filters: readonly StatsFilter[],
): { files: PlannedFile[]; pruned: number } {
  const bound = bind(plan.columns, filters);
  if (bound.length === 0) return { files: plan.files, pruned: 0 };
  const files = plan.files.filter((file) =>
    bound.every((f) => {
      const stats = file.x_column_stats.find((s) => s.column_id === f.column.column_id);
      return !stats || rangeMayMatch(f.column.column_type, stats.min_value, stats.max_value, f);
    }),
  );
  return { files, pruned: plan.files.length - files.length };
}
