/**
 * File pruning for scan plans: a file is dropped only when its column statistics or partition values
 * prove no row can match every filter. Unknown statistics never prune (a file is kept when in doubt).
 */
import { invalid } from "./errors.ts";

export type FilterOp = "eq" | "lt" | "lte" | "gt" | "gte";

export interface Filter {
  column: string;
  op: FilterOp;
  value: string;
}

const OPS = new Set<FilterOp>(["eq", "lt", "lte", "gt", "gte"]);

/** Parses `column:op:value` (the value may itself contain ':'). */
export function parseFilter(raw: string): Filter {
  const first = raw.indexOf(":");
  const second = first < 0 ? -1 : raw.indexOf(":", first + 1);
  if (first <= 0 || second < 0)
    throw invalid(`filter '${raw}' must look like column:op:value (op: eq, lt, lte, gt, gte)`);
  const column = raw.slice(0, first);
  const op = raw.slice(first + 1, second) as FilterOp;
  if (!OPS.has(op)) throw invalid(`filter '${raw}': op must be one of eq, lt, lte, gt, gte`);
  return { column, op, value: raw.slice(second + 1) };
}

/** Numbers compare as numbers when both sides are numeric; everything else as text (DuckLake stores stats as text). */
function compare(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (a.trim() !== "" && b.trim() !== "" && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Could a value in [min, max] satisfy `op value`? Missing bounds mean "unknown": yes. */
export function rangeMayMatch(min: string | null, max: string | null, f: Filter): boolean {
  switch (f.op) {
    case "eq":
      return (min === null || compare(min, f.value) <= 0) && (max === null || compare(max, f.value) >= 0);
    case "lt":
      return min === null || compare(min, f.value) < 0;
    case "lte":
      return min === null || compare(min, f.value) <= 0;
    case "gt":
      return max === null || compare(max, f.value) > 0;
    case "gte":
      return max === null || compare(max, f.value) >= 0;
  }
}
