/**
 * Writes every case of `cases.ts` with the Parquet leaf into a directory, with a JSON manifest of what
 * DuckDB must read back (types, values as text, and the leaf's own stats). Usage:
 *   npx tsx tools/parquet/write-fixtures.ts <dir> && python3 tools/parquet/check.py <dir>
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readParquet, type WrittenFile, writeParquet, writeParquetPaced } from "../../parquet/index.ts";
import { CASES } from "./cases.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: write-fixtures.ts <dir>");
mkdirSync(dir, { recursive: true });
const json = (v: unknown): unknown =>
  JSON.parse(
    JSON.stringify(v, (_k, x) =>
      typeof x === "bigint" ? x.toString() : x instanceof Uint8Array ? [...x] : x,
    ),
  );
const manifest = [];
/** Row groups of a paced case: small, so every case with more than one row spans several row groups. */
const PACED_GROUP_ROWS = 2;
const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
// Each case twice: whole (writeParquet) and paced in row groups of PACED_GROUP_ROWS (writeParquetPaced,
// decision 0325), so stock DuckDB reads a paced file's several row groups with the same stats.
const written: { name: string; c: (typeof CASES)[number]; file: WrittenFile }[] = [];
for (const c of CASES) {
  written.push({ name: c.name, c, file: writeParquet(c.fields, c.rows) });
  written.push({
    name: `${c.name}-paced`,
    c,
    file: await writeParquetPaced(c.fields, c.rows, { rowGroupSize: PACED_GROUP_ROWS, pause }),
  });
}
for (const { name, c, file } of written) {
  writeFileSync(join(dir, `${name}.parquet`), file.bytes);
  const back = await readParquet(file.bytes);
  const same =
    JSON.stringify(json(back.rows)) ===
    JSON.stringify(
      json(c.rows.map((r) => Object.fromEntries(c.fields.map((f) => [f.name, r[f.name] ?? null])))),
    );
  if (!same)
    throw new Error(`${name}: rows read back differ from rows written:\n${JSON.stringify(json(back.rows))}`);
  manifest.push({
    name,
    columns: c.fields.map((f) => f.name),
    fieldIds: c.fields.map((f) => f.fieldId ?? null),
    duckdbTypes: c.duckdbTypes,
    text: c.text,
    rowCount: file.rowCount,
    footerSize: file.footerSize,
    bytes: file.bytes.byteLength,
    leaves: json(file.leaves),
  });
}
writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest, null, 1));
console.log(`wrote ${written.length} Parquet cases to ${dir} (read back identically by the leaf)`);
