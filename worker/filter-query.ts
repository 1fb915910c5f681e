/**
 * The `filter=column:op:value` query parameter of scan plans, parsed into the catalog's filters. Only the
 * text format lives here; which columns exist, how values compare and what prunes is the catalog's
 * (`catalog/reads/prune.ts`).
 */
import { FILTER_OPS, type FilterOp, type StatsFilter } from "../catalog/index.ts";
import { invalid } from "./errors.ts";

const OPS: ReadonlySet<string> = new Set(FILTER_OPS);

/** Parses `column:op:value` (the value may itself contain ':'). */
export function parseFilter(raw: string): StatsFilter {
  const first = raw.indexOf(":");
  const second = first < 0 ? -1 : raw.indexOf(":", first + 1);
  if (first <= 0 || second < 0)
    throw invalid(`filter '${raw}' must look like column:op:value (op: ${FILTER_OPS.join(", ")})`);
  const op = raw.slice(first + 1, second);
  if (!OPS.has(op)) throw invalid(`filter '${raw}': op must be one of ${FILTER_OPS.join(", ")}`);
  return { column: raw.slice(0, first), op: op as FilterOp, value: raw.slice(second + 1) };
}

/** Every `filter` parameter (repeatable). */
export function parseFilters(raw: string | string[] | undefined): StatsFilter[] {
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map(parseFilter);
}
