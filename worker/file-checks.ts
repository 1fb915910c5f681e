/**
 * Before a commit that registers data or delete files is forwarded, every file must exist in this lake's
 * data prefix with the size the verb states: a catalog must never point at a missing or different file.
 * Where a file may lie at all (inside the lake's data path, plain segments) is the catalog's rule,
 * enforced by the verbs themselves (catalog/file-paths.ts, docs/decisions/0105-registered-file-paths.md);
 * this check adds what only the HTTP layer can see, the objects in R2. A file whose path cannot be known
 * before the commit (a table created in the same commit under a name DuckLake replaces by a uuid path)
 * cannot have been uploaded, so it is refused.
 */
import { lakeDataUrl as catalogLakeDataUrl, fileTargets, type Verb } from "../catalog/index.ts";
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
  // Paths outside the prefix are refused by the catalog when the commit applies; nothing to look up.
  const targets = all.filter((t) => t.resolvedPath?.startsWith(prefix));
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
      }),
    );
  }
  return targets.length;
}
