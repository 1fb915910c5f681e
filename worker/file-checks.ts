/**
 * Before a commit that registers data or delete files is forwarded, every file that resolves into this
 * lake's data prefix must exist there with the size the verb states: a catalog must never point at a
 * missing or different file. Paths outside the prefix (external storage) cannot be checked from here
 * and are passed through; so are files of a table created in the same commit under a name DuckLake would
 * replace by a uuid path.
 */
import { fileTargets, type Verb } from "../catalog/index.ts";
import { openLatest } from "../storage/index.ts";
import type { Env } from "./env.ts";
import { invalid } from "./errors.ts";
import { workerObjectCache } from "./object-cache.ts";

const REGISTERING = new Set(["register_data_file", "register_delete_file", "flush_inlined"]);

export function lakeDataUrl(env: Env, lake: string): string {
  return `r2://${env.BUCKET_NAME ?? "ducklake-edge"}/lakes/${lake}/data/`;
}

export async function checkRegisteredFiles(env: Env, lake: string, verbs: readonly Verb[]): Promise<number> {
  if (!verbs.some((v) => REGISTERING.has(v.op))) return 0;
  const view = await openLatest(env.BUCKET, lake, { cache: workerObjectCache() });
  const prefix = lakeDataUrl(env, lake);
  const targets = (await fileTargets(view, verbs)).filter((t) => t.resolvedPath?.startsWith(prefix));
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
