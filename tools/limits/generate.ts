/**
 * Generates `docs/limits.md` from the exported bounds themselves: every `export const MAX_…` / `MIN_…` in
 * the product folders, with its value and the first sentence of its doc comment, grouped by file. Read
 * from the source text (no imports: the Durable Object shell needs the Workers runtime), so the document
 * is deterministic. `--check` writes nothing and exits 1 when the committed file is stale, as the client
 * generator does (decision docs/decisions/0464-limits-document.md).
 *
 *   npx tsx tools/limits/generate.ts          # regenerate
 *   npx tsx tools/limits/generate.ts --check  # CI: fail if stale
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FOLDERS = ["storage", "parquet", "catalog", "maintenance", "durable-objects", "worker", "cli"];
const OUT = join(root, "docs", "limits.md");

function files(rel: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, rel)).sort()) {
    const p = `${rel}/${name}`;
    if (statSync(join(root, p)).isDirectory()) out.push(...files(p));
    else if (p.endsWith(".ts") && !p.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const DECL =
  /(\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*)?export const ((?:MAX|MIN)_[A-Z0-9_]+)\s*(?::[^=]+)?=\s*([^;]+);/g;

/** The value of a plain arithmetic expression (digits, `_`, `* / + -`, parentheses), else the text. */
function shownValue(expr: string): string {
  const text = expr.replace(/\s+/g, " ").trim();
  if (!/^[0-9_ .*/+\-()]+$/.test(text)) return `\`${text}\``;
  const n = Function(`"use strict"; return (${text.replaceAll("_", "")});`)() as number;
  return Number.isFinite(n) ? n.toLocaleString("en-US") : `\`${text}\``;
}

function firstSentence(doc: string | undefined): string {
  if (doc === undefined) return "";
  const text = doc
    .split("\n")
    .map((l) => l.replace(/^\s*\*\s?/, ""))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  const end = text.search(/\.(\s|$)/);
  return (end === -1 ? text : text.slice(0, end + 1)).replaceAll("|", "\\|");
}

export function render(): string {
  const lines = [
    "# Limits",
    "",
    "Every named bound of the product, generated from the exported constants by `tools/limits/generate.ts`",
    "(`npm run limits:check` fails when this file is stale; relations between them are checked in",
    "`test/repo/limits.node-test.ts`). Edit the constant and its doc comment, then `npm run limits:generate`.",
    "",
  ];
  for (const file of FOLDERS.flatMap(files)) {
    const text = readFileSync(join(root, file), "utf8");
    const rows = [...text.matchAll(DECL)].map(
      (m) => `| \`${m[3]}\` | ${shownValue(m[4]!)} | ${firstSentence(m[2])} |`,
    );
    if (rows.length === 0) continue;
    lines.push(
      `## \`${file}\``,
      "",
      "| limit | value | what it bounds |",
      "| --- | --- | --- |",
      ...rows,
      "",
    );
  }
  return lines.join("\n");
}

const doc = render();
if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(OUT, "utf8");
  } catch {}
  if (committed !== doc) {
    console.error("stale docs/limits.md; run: npm run limits:generate");
    process.exit(1);
  }
  console.log("docs/limits.md is up to date");
} else {
  writeFileSync(OUT, doc);
  console.log(`wrote docs/limits.md (${doc.split("\n").length} lines)`);
}
