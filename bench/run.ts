/**
 * `npm run bench -- <name> [--quick]`: runs bench/<name>.bench.ts, prints its table and writes
 * bench-results/<name>.json.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { type BenchOptions, type BenchResult, printTable, writeResult } from "./report.ts";

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .map((f) => f.slice(0, -".bench.ts".length))
  .sort();

const { values, positionals } = parseArgs({
  allowPositionals: true,
  strict: false,
  options: { quick: { type: "boolean", default: false } },
});
const name = positionals[0];
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <name> [--quick]\navailable: ${available.join(", ") || "(none)"}`);
  process.exit(2);
}
const mod = (await import(pathToFileURL(join(here, `${name}.bench.ts`)).href)) as {
  run(opts: BenchOptions): Promise<BenchResult>;
};
const result = await mod.run({ quick: values.quick === true, args: positionals.slice(1) });
printTable(result.rows);
console.log(`\nparams: ${JSON.stringify(result.params)}`);
console.log(`wrote ${writeResult(result)}`);
