/**
 * The repository's import graph, read from the source text (no compiler): every relative `import` /
 * `export … from` / `import("…")` of every `.ts` file under the given roots, with whether it is
 * type-only. Type-only imports are erased at compile time (`verbatimModuleSyntax`), so they never run and
 * cannot form a runtime cycle; the layer rules still count them (a type names the layer it lives in).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

export interface ImportEdge {
  /** Importing file, repository-relative (`durable-objects/writer.ts`). */
  from: string;
  /** Imported file, repository-relative; a folder import resolves to its `index.ts`. */
  to: string;
  typeOnly: boolean;
  /** 1-based line of the statement, for messages. */
  line: number;
}

/** Every `.ts` file under `roots` (repository-relative), skipping generated declaration files. */
export function sourceFiles(repo: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(repo, rel))) {
      const p = `${rel}/${name}`;
      if (name === "node_modules") continue;
      if (statSync(join(repo, p)).isDirectory()) walk(p);
      else if (p.endsWith(".ts") && !p.endsWith(".d.ts")) out.push(p);
    }
  };
  for (const r of roots) walk(r);
  return out.sort();
}

// `import type? <clause> from "x"` and `export type? <clause> from "x"`, where the clause is a brace
// list, a namespace, or a default name (optionally with a brace list or namespace after it).
const CLAUSE = String.raw`(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)`;
const STATIC = new RegExp(
  String.raw`^[ \t]*(import|export)\s+(type\s+)?(${CLAUSE})\s*from\s*["']([^"']+)["']`,
  "gm",
);
const BARE = /^[ \t]*import\s+["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const p = normalize(join(dirname(from), spec)).replaceAll("\\", "/");
  if (p.endsWith(".ts")) return p;
  if (p.endsWith(".js")) return `${p.slice(0, -3)}.ts`;
  return `${p}/index.ts`;
}

/** Whether every name of a brace clause is marked `type` (`import { type A, type B } from …`). */
function allTypeNames(clause: string): boolean {
  if (!clause.startsWith("{")) return false;
  const names = clause
    .slice(1, -1)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return names.length > 0 && names.every((s) => s.startsWith("type "));
}

/** The relative imports of one file's text. */
export function importsOf(from: string, text: string): ImportEdge[] {
  const out: ImportEdge[] = [];
  for (const m of text.matchAll(STATIC)) {
    const to = resolve(from, m[4]!);
    if (to === null) continue;
    const typeOnly = m[2] !== undefined || allTypeNames(m[3]!.trim());
    out.push({ from, to, typeOnly, line: lineOf(text, m.index) });
  }
  for (const re of [BARE, DYNAMIC])
    for (const m of text.matchAll(re)) {
      const to = resolve(from, m[1]!);
      if (to !== null) out.push({ from, to, typeOnly: false, line: lineOf(text, m.index) });
    }
  return out;
}

/** The import graph of `roots`. */
export function importGraph(repo: string, roots: readonly string[]): ImportEdge[] {
  return sourceFiles(repo, roots).flatMap((f) => importsOf(f, readFileSync(join(repo, f), "utf8")));
}

/** Strongly connected components with more than one member (each is an import cycle), by Tarjan. */
export function cycles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}
