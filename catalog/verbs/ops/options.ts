/**
 * set_option / unset_option at global, schema or table scope: ducklake_metadata rows outside the snapshot
 * protocol (no snapshot, no schema_version, no changes_made; last write wins). Names and values are
 * validated and normalized as DuckLake's set_option does.
 */
import { ValueKind } from "../../codec.ts";
import { InvalidRequest, NotFound, quoteName, Unsupported } from "../../errors.ts";
import { Kind, keys, OptionScope } from "../../keys.ts";
import type { JobName } from "../../maintenance/runs.ts";
import type { OptionRecord } from "../../records.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";

/** The option that switches each job on the alarm (`'true'` / `'false'`). */
export const JOB_SWITCH: Record<JobName, string> = {
  flush_inlined: "maintenance_flush_inlined",
  merge_adjacent: "maintenance_merge_adjacent",
  rewrite_deletes: "maintenance_rewrite_deletes",
  expire_snapshots: "maintenance_expire_snapshots",
  delete_files: "maintenance_delete_files",
};

const bool = (v: string): string => {
  const l = v.toLowerCase();
  if (l !== "true" && l !== "false") throw new InvalidRequest(`expected true or false, got ${quoteName(v)}`);
  return l;
};
const int =
  (min: number) =>
  (v: string): string => {
    if (!/^-?[0-9]+$/.test(v.trim()) || Number(v) < min)
      throw new InvalidRequest(`expected an integer >= ${min}, got ${quoteName(v)}`);
    return String(Number(v));
  };
const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};
const memory = (v: string): string => {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i.exec(v);
  const unit = (m?.[2] ?? "").toLowerCase() || "b";
  const mult = UNITS[unit];
  if (!m || mult === undefined)
    throw new InvalidRequest(`expected a memory size such as 512MB, got ${quoteName(v)}`);
  return String(Math.floor(Number(m[1]) * mult));
};
const interval = (v: string): string => {
  if (
    !/^\s*[0-9]+\s*(microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\s*$/i.test(
      v,
    )
  ) {
    throw new InvalidRequest(`expected an interval such as '7 days', got ${quoteName(v)}`);
  }
  return v.trim();
};

const OPTIONS: Record<string, (v: string) => string> = {
  parquet_compression: (v) => {
    const l = v.toLowerCase();
    if (!["uncompressed", "snappy", "gzip", "zstd", "brotli", "lz4", "lz4_raw"].includes(l)) {
      throw new InvalidRequest(`parquet_compression ${quoteName(v)} is not a codec DuckLake accepts`);
    }
    return l;
  },
  parquet_version: (v) => {
    if (v === "1" || v.toUpperCase() === "V1") return "V1";
    if (v === "2" || v.toUpperCase() === "V2") return "V2";
    throw new InvalidRequest(`parquet_version must be 1 or 2, got ${quoteName(v)}`);
  },
  parquet_compression_level: int(-2147483648),
  parquet_row_group_size: int(1),
  parquet_row_group_size_bytes: memory,
  target_file_size: memory,
  data_inlining_row_limit: int(0),
  require_commit_message: bool,
  rewrite_delete_threshold: (v) => {
    const n = Number(v);
    if (Number.isNaN(n) || n < 0 || n > 1)
      throw new InvalidRequest(`rewrite_delete_threshold must be within 0..1`);
    return String(n);
  },
  hive_file_pattern: bool,
  delete_older_than: interval,
  expire_older_than: interval,
  auto_compact: bool,
  per_thread_output: bool,
  write_deletion_vectors: bool,
  sort_on_insert: bool,
  // This catalog's maintenance switches (catalog/maintenance/settings.ts; decision 0327).
  ...Object.fromEntries(Object.values(JOB_SWITCH).map((n) => [n, bool])),
};

async function scopeOf(
  ctx: VerbContext,
  scope: VerbOf<"set_option">["scope"],
): Promise<{ kind: number; id: number; rec: Pick<OptionRecord, "scope" | "scope_id"> }> {
  if (scope === undefined) return { kind: OptionScope.global, id: 0, rec: { scope: null, scope_id: null } };
  if ("schema" in scope) {
    const s = await ctx.schema(scope.schema);
    return { kind: OptionScope.schema, id: s.schema_id, rec: { scope: "schema", scope_id: s.schema_id } };
  }
  const t = await ctx.table(scope.table);
  return { kind: OptionScope.table, id: t.table_id, rec: { scope: "table", scope_id: t.table_id } };
}

export async function setOption(ctx: VerbContext, v: VerbOf<"set_option">): Promise<Assigned> {
  const validate = OPTIONS[v.name];
  if (!validate) throw new Unsupported(`${quoteName(v.name)} is not an option DuckLake's set_option accepts`);
  const value = validate(v.value);
  const { kind, id, rec } = await scopeOf(ctx, v.scope);
  const k = keys.current(Kind.option, kind, id);
  const old = (await ctx.read<OptionRecord>(k, ValueKind.option, "option")) ?? { ...rec, values: {} };
  ctx.write(k, ValueKind.option, {
    ...old,
    values: { ...old.values, [v.name]: value },
  } satisfies OptionRecord);
  return {};
}

export async function unsetOption(ctx: VerbContext, v: VerbOf<"unset_option">): Promise<Assigned> {
  if (!OPTIONS[v.name])
    throw new Unsupported(`${quoteName(v.name)} is not an option DuckLake's set_option accepts`);
  const { kind, id } = await scopeOf(ctx, v.scope);
  const k = keys.current(Kind.option, kind, id);
  const old = await ctx.read<OptionRecord>(k, ValueKind.option, "option");
  if (!old || old.values[v.name] === undefined)
    throw new NotFound(`option ${quoteName(v.name)} is not set at that scope`);
  const values = { ...old.values };
  delete values[v.name];
  ctx.write(k, ValueKind.option, { ...old, values } satisfies OptionRecord);
  return {};
}
