/**
 * The literal helpers the staged-row translations share (`staged-compaction.ts`, `staged-deletes.ts`,
 * `staged-flush.ts`, `staged-rewrite.ts`): each builds the rows a client-side commit would send, from the
 * staged rows it reads, and hands them to the client-side translation (docs/decisions/0263-staged-flush.md).
 */
import { InvalidRequest } from "../../errors.ts";
import type { Literal } from "./parse.ts";

export const num = (n: number): Literal => ({ k: "num", text: String(n) });
export const text = (v: string): Literal => ({ k: "str", v });
export const NULL: Literal = { k: "null" };
export const orNull = (l: Literal | undefined): Literal => l ?? NULL;

export function isNull(l: Literal | undefined): boolean {
  return l === undefined || l.k === "null";
}

export function flag(l: Literal | undefined): boolean {
  return l?.k === "bool" && l.v;
}

/** Readers of staged values whose errors name the translation (`what` e.g. "staged flush"). */
export interface StagedReader {
  int(l: Literal | undefined, what: string): number;
  str(l: Literal | undefined, what: string): string;
}

export function stagedReader(translation: string): StagedReader {
  return {
    int(l, what) {
      const n = l?.k === "num" ? Number(l.text) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < 0) throw new InvalidRequest(`${translation}: ${what} is not an id`);
      return n;
    },
    str(l, what) {
      if (l?.k !== "str") throw new InvalidRequest(`${translation}: ${what} is not a string`);
      return l.v;
    },
  };
}
