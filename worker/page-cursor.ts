/**
 * The cursor half of every paged route whose cursor is a numeric key (snapshots, scan plan, dead letters,
 * maintenance history), beside `page-limit.ts` (the `limit` half): the query parameter a page's cursor comes
 * back in, the answer's `next` field, and, for the pages the worker cuts itself, the one rule for `next`.
 * One home, so every such page reads, documents and ends alike. Pages whose catalog read returns its own
 * cursor (plan, maintenance, `ducklake_*`, rows) pass it through.
 */
import { z } from "@hono/zod-openapi";
import { queryInt } from "./selector.ts";

/** The query parameter a numeric page cursor is passed back in (a non-negative integer, else a 400). */
export function pageCursor(name: string, description: string): ReturnType<typeof queryInt> {
  return queryInt(name, description);
}

/** The answer's cursor of the following page: a key, or null when this page was the last. */
export function nextCursor(description: string): z.ZodNullable<z.ZodNumber> {
  return z.number().int().nullable().openapi({ description });
}

/**
 * When a following page may hold more: `limit`, the page is full (a following page may then be empty);
 * `through`, keys are dense up to this one and the last key read is smaller.
 */
export type MoreRule = { limit: number } | { through: number };

/** The `next` of a page read in ascending key order: its last key while more may follow, else null. */
export function nextAfter<T>(page: readonly T[], key: (row: T) => number, rule: MoreRule): number | null {
  const last = page.at(-1);
  if (last === undefined) return null;
  const k = key(last);
  const more = "limit" in rule ? page.length >= rule.limit : k < rule.through;
  return more ? k : null;
}
