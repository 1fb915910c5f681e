/** The one output format every benchmark uses: a printed table and bench-results/<name>.json. */
import { mkdirSync, writeFileSync } from "node:fs";

export type Row = Record<string, string | number | boolean | null>;

export interface BenchResult {
  name: string;
  params: Record<string, unknown>;
  rows: Row[];
}

export interface BenchOptions {
  quick: boolean;
  args: string[];
}

export function printTable(rows: Row[]): void {
  if (rows.length === 0) {
    console.log("(no rows)");
    return;
  }
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown): string =>
    typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : String(v ?? "");
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]): string => vals.map((v, i) => v.padStart(widths[i] ?? 0)).join("  ");
  console.log(line(cols));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c]))));
}

export function writeResult(result: BenchResult): string {
  mkdirSync("bench-results", { recursive: true });
  const path = `bench-results/${result.name}.json`;
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}
