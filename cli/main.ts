/**
 * `ducklake-edge`: the command line over the HTTP API, through the typed client (client/). Every command
 * prints JSON on stdout (one document) and progress on stderr; a failure prints `error <code>: <message>`
 * with the API's stable code and exits 1. Commands and their options: README "CLI".
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { ApiFailure, createLakeClient, unwrap } from "../client/index.ts";
import { type ConfigSources, resolveConfig } from "./config.ts";
import { CliError, describeFailure } from "./errors.ts";
import { exportLake } from "./export.ts";
import { quackLines } from "./quack.ts";
import { DEFAULT_ROWS_BATCH, DEFAULT_ROWS_IN_FLIGHT, type RowsFormat, streamRows } from "./rows.ts";
import { type Api, makeApi, uploadParquet } from "./upload.ts";

const program = new Command();
program
  .name("ducklake-edge")
  .description("Command line for a ducklake-edge deployment (lakes, commits, uploads, checkpoints, export).")
  .option("--url <url>", "the API's origin (env DUCKLAKE_EDGE_URL; default http://localhost:8787)")
  .option("--token <token>", "bearer token (env DUCKLAKE_EDGE_TOKEN)")
  .option("--config <file>", "JSON config file {url, token} (env DUCKLAKE_EDGE_CONFIG)");

function api(): Api {
  const config = resolveConfig(program.opts<ConfigSources>());
  return makeApi(
    config,
    createLakeClient({ baseUrl: config.url, ...(config.token ? { token: config.token } : {}) }),
  );
}

/** The origin a failed command used (for "could not reach"), or a placeholder when the config is bad. */
function configuredUrl(): string {
  try {
    return resolveConfig(program.opts<ConfigSources>()).url;
  } catch {
    return "(the configured URL)";
  }
}

const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

const intArg = (name: string) => (v: string) => {
  if (!/^\d{1,15}$/.test(v)) throw new CliError("InvalidRequest", `${name} must be a non-negative integer`);
  return Number(v);
};

const lakes = program.command("lakes").description("create, list and delete lakes");
lakes
  .command("create <lake>")
  .option("--data-path <path>", "DuckLake data_path (default: the lake's R2 data prefix)")
  .action(async (lake: string, o: { dataPath?: string }) => {
    const a = api();
    print(
      await unwrap(
        a.client.PUT("/v1/lakes/{lake}", {
          params: { path: { lake } },
          ...(o.dataPath ? { body: { dataPath: o.dataPath } } : {}),
        }),
      ),
    );
  });
lakes.command("list").action(async () => {
  const a = api();
  const out: { name: string; state: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(a.client.GET("/v1/lakes", { params: { query: cursor ? { cursor } : {} } }));
    out.push(...page.lakes);
    cursor = page.cursor ?? undefined;
  } while (cursor);
  print({ lakes: out });
});
lakes
  .command("delete <lake>")
  .description("delete a lake: its name answers 404 at once; its objects are removed after a grace period")
  .action(async (lake: string) => {
    print(await unwrap(api().client.DELETE("/v1/lakes/{lake}", { params: { path: { lake } } })));
  });
lakes
  .command("purge <lake>")
  .description(
    "delete a lake (if live) and remove its objects now, so the name is free at once; irreversible",
  )
  .action(async (lake: string) => {
    print(
      await unwrap(
        api().client.DELETE("/v1/lakes/{lake}", { params: { path: { lake }, query: { purge: "true" } } }),
      ),
    );
  });

program
  .command("flush <lake>")
  .description("flush the lake's row log into DuckLake now (what `rows` does itself when the log is full)")
  .action(async (lake: string) => {
    print(await unwrap(api().client.POST("/v1/lakes/{lake}/flush", { params: { path: { lake } } })));
  });

program
  .command("commit <lake> <file>")
  .description(
    'commit verbs from a JSON file: {"verbs": [...], "message"?, "author"?} or a bare array of verbs',
  )
  .option("--idempotency-key <key>", "send this key so a retry replays instead of committing twice")
  .option("-m, --message <text>", "commit message (overrides the file's)")
  .action(async (lake: string, file: string, o: { idempotencyKey?: string; message?: string }) => {
    let parsed: unknown;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      const f = describeFailure(e, configuredUrl());
      throw new CliError(f.code, f.message);
    }
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new CliError("InvalidRequest", `${file}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const body = (Array.isArray(parsed) ? { verbs: parsed } : parsed) as { verbs: never[]; message?: string };
    if (o.message) body.message = o.message;
    print(
      await unwrap(
        api().client.POST("/v1/lakes/{lake}/commits", {
          params: { path: { lake }, header: o.idempotencyKey ? { "idempotency-key": o.idempotencyKey } : {} },
          body,
        }),
      ),
    );
  });

program
  .command("upload <lake> <file>")
  .description(
    "upload a Parquet file into a table and register it (stats read from its footer) in one commit",
  )
  .requiredOption("-t, --table <schema.table>", "the table (schema defaults to main)")
  .option("--name <name>", "object name under the table's directory (default: the file's name)")
  .option("-m, --message <text>", "commit message")
  .action(async (lake: string, file: string, o: { table: string; name?: string; message?: string }) => {
    print(await uploadParquet(api(), { lake, file, ...o }));
  });

const oneOf =
  <T extends string>(name: string, allowed: readonly T[]) =>
  (v: string): T => {
    if (!(allowed as readonly string[]).includes(v))
      throw new CliError("InvalidRequest", `${name} must be one of ${allowed.join(", ")}`);
    return v as T;
  };

program
  .command("rows <lake> [file]")
  .description(
    "stream CSV (a header line, then rows) or NDJSON (one object a line) from a file or stdin into the rows API",
  )
  .requiredOption("-t, --table <schema.table>", "the table (schema defaults to main)")
  .option(
    "--format <format>",
    "csv or ndjson (default: from the file's extension)",
    oneOf("--format", ["csv", "ndjson"] as const),
  )
  .option(
    "--op <op>",
    "insert (default) or upsert (matched on the table's key columns)",
    oneOf("--op", ["insert", "upsert"] as const),
  )
  .option(
    "--write-path <path>",
    "wal or lake (default: the lake's setting)",
    oneOf("--write-path", ["wal", "lake"] as const),
  )
  .option("--batch <n>", `rows per request (default ${DEFAULT_ROWS_BATCH})`, intArg("--batch"))
  .option(
    "--in-flight <n>",
    `requests open at once (default ${DEFAULT_ROWS_IN_FLIGHT}; 1 for upsert)`,
    intArg("--in-flight"),
  )
  .option(
    "--idempotency-prefix <prefix>",
    "batch n is sent with key <prefix>-<n>; rerun with the printed prefix to resume (default: random)",
  )
  .action(
    async (
      lake: string,
      file: string | undefined,
      o: {
        table: string;
        format?: RowsFormat;
        op?: "insert" | "upsert";
        writePath?: "wal" | "lake";
        batch?: number;
        inFlight?: number;
        idempotencyPrefix?: string;
      },
    ) => {
      const result = await streamRows(api(), { lake, file, ...o });
      print(result);
      if (result.failed) {
        const f = result.failed;
        const where = f.line !== null ? `line ${f.line}` : `lines ${f.lines[0]}-${f.lines[1]}`;
        process.stderr.write(`error ${f.code}: ${where}: ${f.message}\n`);
        process.exitCode = 1;
      }
    },
  );

program
  .command("snapshots <lake>")
  .description("the snapshot list with author, message and changes")
  .option("--since <id>", "only snapshots after this id", intArg("--since"))
  .option("--limit <n>", "at most this many (1-1000)", intArg("--limit"))
  .action(async (lake: string, o: { since?: number; limit?: number }) => {
    const a = api();
    const out: unknown[] = [];
    let since = o.since;
    for (;;) {
      const page = await unwrap(
        a.client.GET("/v1/lakes/{lake}/snapshots", {
          params: {
            path: { lake },
            query: {
              ...(since !== undefined ? { since: String(since) } : {}),
              ...(o.limit !== undefined ? { limit: String(o.limit) } : {}),
            },
          },
        }),
      );
      out.push(...page.snapshots);
      if (page.next === null || o.limit !== undefined) break;
      since = page.next;
    }
    print({ snapshots: out });
  });

const checkpoint = program.command("checkpoint").description("named checkpoints (admin)");
checkpoint
  .command("create <lake>")
  .option("--lifetime <seconds>", "how long it can be opened (default: until deleted)", intArg("--lifetime"))
  .action(async (lake: string, o: { lifetime?: number }) => {
    print(
      await unwrap(
        api().client.POST("/v1/lakes/{lake}/checkpoints", {
          params: { path: { lake } },
          body: o.lifetime !== undefined ? { lifetimeSeconds: o.lifetime } : {},
        }),
      ),
    );
  });
checkpoint.command("list <lake>").action(async (lake: string) => {
  print(await unwrap(api().client.GET("/v1/lakes/{lake}/checkpoints", { params: { path: { lake } } })));
});
checkpoint.command("delete <lake> <id>").action(async (lake: string, id: string) => {
  print(
    await unwrap(
      api().client.DELETE("/v1/lakes/{lake}/checkpoints/{id}", { params: { path: { lake, id } } }),
    ),
  );
});

program
  .command("quack-url <lake>")
  .description("print the DuckDB lines that attach this lake over Quack")
  .action(async (lake: string) => {
    process.stdout.write(`${(await quackLines(api().config, lake)).join("\n")}\n`);
  });

program
  .command("export <lake> <out>")
  .description("write the lake at a snapshot to a DuckLake metadata file (SQLite) stock DuckDB attaches")
  .option("--snapshot <id>", "the snapshot (default: the head)", intArg("--snapshot"))
  .option("--data-dir <dir>", "also download every data and delete file here and point data_path at it")
  .action(async (lake: string, out: string, o: { snapshot?: number; dataDir?: string }) => {
    print(await exportLake(api(), { lake, out, ...o }));
  });

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof ApiFailure || e instanceof CliError) {
    process.stderr.write(`error ${e.code}: ${e.message}\n`);
  } else {
    const f = describeFailure(e, configuredUrl());
    process.stderr.write(`error ${f.code}: ${f.message}\n`);
  }
  process.exitCode = 1;
}
