/**
 * `upload`: one local Parquet file into a table. The footer alone gives the row count, sizes and column
 * stats (`readParquetFooter`); the bytes go to the table's directory under the lake's data path with a
 * progress bar; one commit registers the file (an idempotency key makes a re-sent commit a replay).
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { basename } from "node:path";
import { failureOf, type LakeClient, unwrap } from "../client/index.ts";
import { footerLength, readParquetFooter } from "../parquet/index.ts";
import type { CliConfig } from "./config.ts";
import { CliError } from "./errors.ts";
import { Progress } from "./progress.ts";

/** Bytes sent per write while uploading (the progress bar moves per chunk). */
export const UPLOAD_CHUNK_BYTES = 256 * 1024;

export interface Api {
  config: CliConfig;
  client: LakeClient;
  download(lake: string, path: string): Promise<Uint8Array>;
  upload(lake: string, path: string, file: string, onProgress: (sent: number) => void): Promise<void>;
}

const encodePath = (p: string): string => p.split("/").map(encodeURIComponent).join("/");

export function makeApi(config: CliConfig, client: LakeClient): Api {
  const auth: Record<string, string> = config.token ? { authorization: `Bearer ${config.token}` } : {};
  return {
    config,
    client,
    async download(lake, path) {
      const res = await fetch(`${config.url}/v1/lakes/${lake}/data/${encodePath(path)}`, { headers: auth });
      if (!res.ok) throw await failureOf(res);
      return new Uint8Array(await res.arrayBuffer());
    },
    upload(lake, path, file, onProgress) {
      const size = statSync(file).size;
      const url = new URL(`${config.url}/v1/lakes/${lake}/data/${encodePath(path)}`);
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      return new Promise<void>((done, fail) => {
        const req = send(
          url,
          {
            method: "PUT",
            headers: { ...auth, "content-length": String(size), "content-type": "application/octet-stream" },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              const body = Buffer.concat(chunks).toString("utf8");
              if ((res.statusCode ?? 500) < 300) done();
              else failureOf(new Response(body, { status: res.statusCode ?? 500 })).then(fail, fail);
            });
          },
        );
        req.on("error", (e) => fail(new CliError("Transport", `upload failed: ${e.message}`)));
        const fd = openSync(file, "r");
        const buf = Buffer.alloc(UPLOAD_CHUNK_BYTES);
        let sent = 0;
        const pump = (): void => {
          while (sent < size) {
            const n = readSync(fd, buf, 0, Math.min(UPLOAD_CHUNK_BYTES, size - sent), sent);
            if (n <= 0) break;
            sent += n;
            const more = req.write(Buffer.from(buf.subarray(0, n)));
            onProgress(sent);
            if (!more) {
              req.once("drain", pump);
              return;
            }
          }
          closeSync(fd);
          req.end();
        };
        pump();
      });
    },
  };
}

/** The footer facts of a local file, reading only its last bytes. */
export function localFooter(file: string): ReturnType<typeof readParquetFooter> & { size: number } {
  const size = statSync(file).size;
  const notParquet = (why: string): CliError =>
    new CliError(
      "NotParquet",
      `${file} is not a Parquet file (${why}); upload takes Parquet (e.g. DuckDB's COPY … TO 'f.parquet'); for CSV or NDJSON rows use: ducklake-edge rows <lake> <file> --table <schema.table>`,
    );
  if (size < 12) throw notParquet(`${size} bytes`);
  const fd = openSync(file, "r");
  try {
    const last8 = Buffer.alloc(8);
    readSync(fd, last8, 0, 8, size - 8);
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    if (head.toString("latin1") !== "PAR1" || last8.subarray(4).toString("latin1") !== "PAR1") {
      throw notParquet("it does not begin and end with the magic bytes PAR1");
    }
    const len = Math.min(size, footerLength(new Uint8Array(last8)));
    const tail = Buffer.alloc(len);
    readSync(fd, tail, 0, len, size - len);
    try {
      return { ...readParquetFooter(new Uint8Array(tail)), size };
    } catch (e) {
      throw notParquet(`its footer cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    }
  } finally {
    closeSync(fd);
  }
}

interface CatalogShape {
  schemas: { schema_name: string; path: string; path_is_relative: boolean }[];
  tables: {
    schema_name: string;
    table_name: string;
    path: string;
    path_is_relative: boolean;
    columns: { column_name: string; parent_column: number | null }[];
  }[];
}

export interface UploadOptions {
  lake: string;
  file: string;
  /** `schema.table` (schema defaults to main). */
  table: string;
  /** Name of the object under the table's directory (default: the file's base name). */
  name?: string;
  message?: string;
}

export async function uploadParquet(api: Api, opts: UploadOptions) {
  const [schemaName, tableName] = opts.table.includes(".")
    ? (opts.table.split(".", 2) as [string, string])
    : ["main", opts.table];
  const facts = localFooter(opts.file);
  const { catalog } = await unwrap(
    api.client.GET("/v1/lakes/{lake}/catalog", { params: { path: { lake: opts.lake } } }),
  );
  const cat = catalog as unknown as CatalogShape;
  const schema = cat.schemas.find((s) => s.schema_name === schemaName);
  const table = cat.tables.find((t) => t.schema_name === schemaName && t.table_name === tableName);
  if (!schema || !table)
    throw new CliError("NotFound", `table ${schemaName}.${tableName} does not exist in lake '${opts.lake}'`);
  if (!schema.path_is_relative || !table.path_is_relative) {
    throw new CliError(
      "Unsupported",
      `table ${schemaName}.${tableName} has an absolute path; upload it yourself`,
    );
  }
  const name = opts.name ?? basename(opts.file);
  const dataPath = `${schema.path}${table.path}${name}`;
  const bar = new Progress(`upload ${name}`, facts.size);
  await api.upload(opts.lake, dataPath, opts.file, (sent) => bar.update(sent));
  bar.finish();
  const known = new Set(table.columns.filter((c) => c.parent_column === null).map((c) => c.column_name));
  const columnStats = facts.columns
    .filter((c) => known.has(c.name))
    .map((c) => ({
      column: c.name,
      valueCount: c.valueCount,
      columnSizeBytes: c.compressedBytes,
      ...(c.nullCount !== null ? { nullCount: c.nullCount } : {}),
      ...(c.min !== null ? { min: c.min } : {}),
      ...(c.max !== null ? { max: c.max } : {}),
    }));
  const committed = await unwrap(
    api.client.POST("/v1/lakes/{lake}/commits", {
      params: { path: { lake: opts.lake }, header: { "idempotency-key": `upload-${randomUUID()}` } },
      body: {
        ...(opts.message ? { message: opts.message } : { message: `upload ${name}` }),
        verbs: [
          {
            op: "register_data_file",
            table: { schema: schemaName, name: tableName },
            file: {
              path: name,
              recordCount: facts.rowCount,
              fileSizeBytes: facts.size,
              footerSize: facts.footerSize,
              columnStats,
            },
          },
        ],
      },
    }),
  );
  return { path: dataPath, rows: facts.rowCount, bytes: facts.size, ...committed };
}
