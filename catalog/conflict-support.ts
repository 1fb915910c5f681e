/** Small shared helpers for the classifier (kept apart so the matrix file reads as the matrix). */
export type { ChangeSet, QualifiedName } from "./changes.ts";

/** DuckLake compares schema and entry names case-insensitively in its conflict checks. */
export function foldForCompare(name: string): string {
  return name.toLowerCase();
}
