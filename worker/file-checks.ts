/**
 * Before a commit that registers data or delete files is forwarded, every file must exist in this lake's
 * data prefix with the size the verb states: a catalog must never point at a missing or different file.
 * Where a file may lie at all (inside the lake's data path, plain segments) is the catalog's rule,
 * enforced by the verbs themselves (catalog/file-paths.ts, docs/decisions/0105-registered-file-paths.md);
 * this check adds what only the HTTP layer can see, the objects in R2. A file whose path cannot be known
 * before the commit (a table created in the same commit under a name DuckLake replaces by a uuid path)
 * cannot have been uploaded, so it is refused.
 *
 * A data file registered into an existing table must also fit the table's columns by DuckLake's rules
 * (catalog/file-schema.ts): its footer is read with two ranged GETs (docs/decisions/0482-registered-file-schema.md),
 * whatever else the commit holds and wherever the file lies in the data prefix (relative or absolute path); a
 * footer that cannot be read is refused, and so is a registration into a table whose columns the same commit
 * changes (docs/decisions/0652-registered-file-checks-complete.md).
 */
import {
  lakeDataUrl as catalogLakeDataUrl,
  checkFileColumns,
  type FileTarget,
  fileTargets,
  quoteName,
  tableColumnTypes,
  type Verb,
} from "../catalog/index.ts";
import { footerLength, ParquetInvalid, readParquetFooter } from "../parquet/index.ts";
import { openLatest } from "../storage/index.ts";
import type { Env } from "./env.ts";
import { invalid } from "./errors.ts";
import { workerObjectCache } from "./object-cache.ts";

const REGISTERING = new Set([
  "register_data_file",
  "register_delete_file",
  "flush_inlined",
  "merge_adjacent_files",
  "rewrite_data_files",
]);

export function lakeDataUrl(env: Env, lake: string): string {
  return catalogLakeDataUrl(env.BUCKET_NAME, lake);
}

export async function checkRegisteredFiles(env: Env, lake: string, verbs: readonly Verb[]): Promise<number> {
  if (!verbs.some((v) => REGISTERING.has(v.op))) return 0;
  const view = await openLatest(env.BUCKET, lake, { cache: workerObjectCache() });
  const prefix = lakeDataUrl(env, lake);
  const all = await fileTargets(view, verbs);
  const unknown = all.find((t) => t.resolvedPath === null);
  if (unknown) {
    throw invalid(
      `verb ${unknown.verb} registers a ${unknown.kind} file whose path is not known before the commit (${unknown.reason ?? "unknown table"}); create the table first, upload the file, then register it`,
    );
  }
  // Paths outside the prefix are refused by the catalog when the commit applies, except on a lake the
  // writer cannot reach, whose files the Worker never touches (decision 0601); nothing to look up.
  const targets = all.filter((t) => t.resolvedPath?.startsWith(prefix));
  // The head's columns are not the ones a file must fit when the same commit changes them: refused, naming
  // the remedy, before any object is read.
  const changing = targets.find((t) => t.columnsChangeInCommit);
  if (changing) {
    throw invalid(
      `verb ${changing.verb} registers data file '${changing.resolvedPath}' into a table whose columns or name another verb of the same commit changes; commit that change first, then register the file in a commit of its own`,
    );
  }
  // Six at a time: a Worker has six outgoing connections.
  for (let i = 0; i < targets.length; i += 6) {
    await Promise.all(
      targets.slice(i, i + 6).map(async (t) => {
        const rel = (t.resolvedPath as string).slice(prefix.length);
        const head = await env.BUCKET.head(`lakes/${lake}/data/${rel}`);
        if (!head) {
          throw invalid(
            `verb ${t.verb} registers ${t.kind} file '${t.resolvedPath}', which does not exist; upload it first (PUT /v1/lakes/${lake}/data/${rel})`,
          );
        }
        if (head.size !== t.fileSizeBytes) {
          throw invalid(
            `verb ${t.verb} states ${t.kind} file '${t.resolvedPath}' is ${t.fileSizeBytes} bytes, but the stored object is ${head.size} bytes`,
          );
        }
        if (t.tableId !== undefined) {
          await checkFooter(env, `lakes/${lake}/data/${rel}`, head.size, t, verbs[t.verb], view);
        }
      }),
    );
  }
  return targets.length;
}

/** Reads the object's footer (two ranged GETs) and checks its columns against the target's table. */
async function checkFooter(
  env: Env,
  key: string,
  size: number,
  t: FileTarget,
  verb: Verb | undefined,
  view: Parameters<typeof tableColumnTypes>[0],
): Promise<void> {
  const label = `verb ${t.verb} registers data file '${t.resolvedPath}'`;
  const suffix = async (length: number): Promise<Uint8Array> => {
    const obj = await env.BUCKET.get(key, { range: { suffix: length } });
    if (!obj) throw invalid(`${label}, which disappeared while it was being checked; upload it again`);
    return new Uint8Array(await obj.arrayBuffer());
  };
  let fields: ReturnType<typeof readParquetFooter>["fields"];
  try {
    if (size < 12) throw new ParquetInvalid(`${size} bytes`);
    const len = Math.min(size, footerLength(await suffix(8)));
    fields = readParquetFooter(await suffix(len)).fields;
  } catch (e) {
    if (!(e instanceof ParquetInvalid)) throw e;
    // A file whose columns cannot be read cannot be shown to fit the table (decision 0652).
    throw invalid(`${label}, whose Parquet footer cannot be read (${e.message}); upload a Parquet file`);
  }
  const ref = verb && "table" in verb ? (verb.table as { schema?: string; name?: string }) : undefined;
  const table =
    ref?.name !== undefined ? `${quoteName(ref.schema ?? "main")}.${quoteName(ref.name)}` : `id ${t.tableId}`;
  checkFileColumns(
    { file: t.resolvedPath ?? key, table },
    await tableColumnTypes(view, t.tableId as number),
    fields,
  );
}
