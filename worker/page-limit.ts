/**
 * The `limit` query parameter of every paged route: an integer from 1 to the route's bound, optional (each
 * route names its default), refused with a 400 naming the range. One home, so every page bound reads and
 * fails alike (the rows, dead-letter, snapshot, plan, `ducklake_*`, lake-list and maintenance pages).
 */
import { z } from "@hono/zod-openapi";

/** The parameter's schema: an optional query string, parsed to a number in range. */
export type PageLimit = z.ZodOptional<z.ZodPipe<z.ZodString, z.ZodTransform<number, string>>>;

export function pageLimit(max: number, meta: { description?: string; example?: string } = {}): PageLimit {
  const text = `limit must be an integer from 1 to ${max}`;
  return z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), text)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, text)
    .optional()
    .openapi({ param: { name: "limit", in: "query" }, ...meta });
}
