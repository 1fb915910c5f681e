/**
 * `npm run cli:pack [-- <out-dir>]`: the CLI as a package a user installs anywhere
 * (`npm install -g ducklake-edge-cli-<version>.tgz`), not only inside this checkout. esbuild bundles
 * cli/main.ts and everything it imports (the typed client, the Parquet footer reader, commander, ...)
 * into one ES module with a node shebang; only sql.js stays a dependency (its wasm file is loaded from its
 * own package directory). Then `npm pack` in the staging directory writes the tarball into <out-dir>
 * (default: dist/) and prints its path. Decision 0484.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../..");
const out = resolve(process.argv[2] ?? join(ROOT, "dist"));
const stage = join(out, "cli-package");
const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
};

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
await build({
  entryPoints: [join(ROOT, "cli/main.ts")],
  outfile: join(stage, "ducklake-edge.mjs"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["sql.js"],
  // Bundled CommonJS packages call require(): give the ES module one.
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);',
  },
  logLevel: "warning",
});
writeFileSync(
  join(stage, "package.json"),
  `${JSON.stringify(
    {
      name: "ducklake-edge-cli",
      version: root.version,
      description:
        "Command line for a ducklake-edge deployment (lakes, commits, uploads, rows, checkpoints, export).",
      type: "module",
      bin: { "ducklake-edge": "ducklake-edge.mjs" },
      files: ["ducklake-edge.mjs"],
      engines: root.engines,
      dependencies: { "sql.js": root.dependencies["sql.js"] },
    },
    null,
    2,
  )}\n`,
);
writeFileSync(
  join(stage, "README.md"),
  "# ducklake-edge-cli\n\n`ducklake-edge --help`; see the ducklake-edge README, section CLI.\n",
);
const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
  cwd: stage,
  encoding: "utf8",
})
  .trim()
  .split("\n")
  .at(-1);
process.stdout.write(`${join(out, name ?? "")}\n`);
