import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/** Golden Quack wire bodies captured from stock DuckDB (tools/quack-wire-capture.py), by file name. */
const QUACK_WIRE_DIR = "./test/fixtures/quack/wire";
const quackWire: Record<string, string> = Object.fromEntries(
  readdirSync(QUACK_WIRE_DIR)
    .filter((f) => f.endsWith(".bin"))
    .map((f) => [f, readFileSync(`${QUACK_WIRE_DIR}/${f}`).toString("base64")]),
);

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        // Test output for checks that run outside workerd (tools/ducklake-dump-check.py reads the dumps
        // test/worker/ducklake-dump.test.ts writes): PUT /<relative path> writes under test-output/.
        serviceBindings: {
          TEST_OUTPUT: async (request: Request): Promise<Response> => {
            const rel = normalize(decodeURIComponent(new URL(request.url).pathname)).replace(/^\/+/, "");
            if (rel.startsWith("..") || request.method !== "PUT")
              return new Response("refused", { status: 400 });
            const path = join("test-output", rel);
            mkdirSync(dirname(path), { recursive: true });
            writeFileSync(path, Buffer.from(await request.arrayBuffer()));
            return new Response("ok");
          },
        },
        // Tests exercise auth with known tokens; the deployed config never sees these.
        bindings: {
          // The deployed config, so a test can prove it never enables the dev token.
          TEST_WRANGLER_TOML: readFileSync("./wrangler.toml", "utf8"),
          // What `npm start` runs, so a test can prove it (and only it) enables the dev token.
          TEST_PACKAGE_JSON: readFileSync("./package.json", "utf8"),
          TEST_START_SCRIPT: readFileSync("./tools/start.mjs", "utf8"),
          // The README walkthrough's Parquet file (written by DuckDB; tools/make-fixture.py) and its stats.
          TEST_ORDERS_PARQUET_B64: readFileSync("./test/fixtures/orders-1.parquet").toString("base64"),
          TEST_ORDERS_STATS: readFileSync("./test/fixtures/orders-1.json", "utf8"),
          // The committed generated client inputs; test/client/generated.test.ts fails when they are stale.
          TEST_CLIENT_OPENAPI: readFileSync("./client/openapi.json", "utf8"),
          TEST_CLIENT_SCHEMA: readFileSync("./client/schema.d.ts", "utf8"),
          TEST_QUACK_WIRE: JSON.stringify(quackWire),
          // Replays a property failure from a CI log: `FC_SEED=<seed> [FC_PATH=<path>] npx vitest run …`
          // (test/support/property.ts, docs/decisions/0176-reproducible-properties.md).
          FC_SEED: process.env.FC_SEED ?? "",
          FC_PATH: process.env.FC_PATH ?? "",
          // A developer's .dev.vars must not leak into the suite.
          DEV_AUTH: "disabled",
          DEV_TOKEN: "",
          AUTH_TOKENS: JSON.stringify({
            "t-admin-all-0123456789": { lakes: ["*"], scope: "admin" },
            "t-write-sales-0123456789": { lakes: ["sales"], scope: "write" },
            "t-read-sales-0123456789": { lakes: ["sales"], scope: "read" },
            // The S3 endpoint's auth matrix (test/worker/s3/auth-matrix.test.ts).
            "t-write-s3a-0123456789": { lakes: ["s3a"], scope: "write" },
            "t-read-s3a-0123456789": { lakes: ["s3a"], scope: "read" },
          }),
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
