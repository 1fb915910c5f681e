/**
 * Consistency selectors every read accepts: latest (default), `snapshot=N` (time travel), `checkpoint=ID`
 * (a pinned cut read from immutable objects only) and `after=<position token>` (read-your-writes).
 */
import { z } from "@hono/zod-openapi";

export const queryInt = (name: string, description: string, example?: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, `${name} must be a non-negative integer`)
    .transform(Number)
    .optional()
    .openapi({ param: { name, in: "query" }, description, ...(example ? { example } : {}) });

export const selectorShape = {
  snapshot: queryInt("snapshot", "time travel: answer as of this snapshot id", "3"),
  checkpoint: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "checkpoint must be a checkpoint id")
    .optional()
    .openapi({
      param: { name: "checkpoint", in: "query" },
      description:
        "answer from this named checkpoint's pinned cut (immutable objects only; works while the writer is down)",
    }),
  after: queryInt(
    "after",
    "read-your-writes: a `position` a commit returned; the answer comes from a cut at or after it, never an older one",
    "17",
  ),
};

/** Refinement every selector query carries: `.refine(selectorValid, selectorRuleText)`. */
export const selectorValid = (q: { checkpoint?: string | undefined; after?: number | undefined }): boolean =>
  !(q.checkpoint !== undefined && q.after !== undefined);
export const selectorRuleText: { message: string; path: string[] } = {
  message: "checkpoint and after cannot be combined: a checkpoint is a fixed cut",
  path: ["after"],
};

export interface Selector {
  snapshot?: number | undefined;
  checkpoint?: string | undefined;
  after?: number | undefined;
}
