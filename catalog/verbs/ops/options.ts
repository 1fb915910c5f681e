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
import { MAX_INLINED_ROWS_PER_COMMIT } from "./inline.ts";

/**
 * DuckLake's ranges (docs/decisions/0404-option-ranges.md): counts are cast to UBIGINT and sizes parsed
 * by DuckDB's ParseMemoryLimit, both into an unsigned 64-bit integer; durations must be intervals DuckDB
 * can hold. A value outside is refused (the caller adds the option's name), never stored approximated.
 */
/** A value outside its option's form or range; setOption names the option in the InvalidRequest. */
class BadValue extends Error {}

export const MAX_OPTION_UNSIGNED = 2n ** 64n - 1n;
/** DuckDB's interval fields: months and days are 32-bit, micros 64-bit. */
const MAX_INTERVAL_MONTHS_OR_DAYS = 2n ** 31n - 1n;
const MAX_INTERVAL_MICROS = 2n ** 63n - 1n;

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
  if (l !== "true" && l !== "false") throw new BadValue(`expected true or false, got ${quoteName(v)}`);
  return l;
};
const int =
  (min: bigint) =>
  (v: string): string => {
    if (!/^-?[0-9]+$/.test(v.trim()))
      throw new BadValue(`expected an integer >= ${min}, got ${quoteName(v)}`);
    const n = BigInt(v.trim());
    if (n < min || n > MAX_OPTION_UNSIGNED)
      throw new BadValue(`${quoteName(v)} is out of range: expected ${min} to ${MAX_OPTION_UNSIGNED}`);
    return String(n);
  };
const UNITS: Record<string, bigint> = {
  b: 1n,
  kb: 10n ** 3n,
  mb: 10n ** 6n,
  gb: 10n ** 9n,
  tb: 10n ** 12n,
  kib: 1024n,
  mib: 1024n ** 2n,
  gib: 1024n ** 3n,
  tib: 1024n ** 4n,
};
/** A size in bytes, computed exactly (decimal digits times the unit, rounded down). */
const memory = (v: string): string => {
  const m = /^\s*([0-9]+)(?:\.([0-9]+))?\s*([a-z]*)\s*$/i.exec(v);
  const unit = (m?.[3] ?? "").toLowerCase() || "b";
  const mult = UNITS[unit];
  if (!m || mult === undefined)
    throw new BadValue(`expected a memory size such as 512MB, got ${quoteName(v)}`);
  const fraction = (m[2] ?? "").slice(0, 30);
  const scale = 10n ** BigInt(fraction.length);
  const bytes = (BigInt(`${m[1]}${fraction}`) * mult) / scale;
  if (bytes > MAX_OPTION_UNSIGNED)
    throw new BadValue(`${quoteName(v)} is out of range: at most ${MAX_OPTION_UNSIGNED} bytes`);
  return String(bytes);
};
const INTERVAL_UNITS: Record<string, { months?: bigint; days?: bigint; micros?: bigint }> = {
  microsecond: { micros: 1n },
  millisecond: { micros: 1000n },
  second: { micros: 1_000_000n },
  minute: { micros: 60_000_000n },
  hour: { micros: 3_600_000_000n },
  day: { days: 1n },
  week: { days: 7n },
  month: { months: 1n },
  year: { months: 12n },
};
const interval = (v: string): string => {
  const m = /^\s*([0-9]+)\s*(microsecond|millisecond|second|minute|hour|day|week|month|year)s?\s*$/i.exec(v);
  if (!m) throw new BadValue(`expected an interval such as '7 days', got ${quoteName(v)}`);
  const n = BigInt(m[1] as string);
  const unit = INTERVAL_UNITS[(m[2] as string).toLowerCase()] ?? {};
  const over =
    (unit.months !== undefined && n * unit.months > MAX_INTERVAL_MONTHS_OR_DAYS) ||
    (unit.days !== undefined && n * unit.days > MAX_INTERVAL_MONTHS_OR_DAYS) ||
    (unit.micros !== undefined && n * unit.micros > MAX_INTERVAL_MICROS);
  if (over) throw new BadValue(`${quoteName(v)} is out of range for an interval`);
  return v.trim();
};
/** DuckLake's cleanup intervals also take '' (no default: each call then names its cutoff), as stock stores it. */
const intervalOrEmpty = (v: string): string => (v === "" ? "" : interval(v));

const OPTIONS: Record<string, (v: string) => string> = {
  parquet_compression: (v) => {
    const l = v.toLowerCase();
    if (!["uncompressed", "snappy", "gzip", "zstd", "brotli", "lz4", "lz4_raw"].includes(l)) {
      throw new BadValue(`parquet_compression ${quoteName(v)} is not a codec DuckLake accepts`);
    }
    return l;
  },
  parquet_version: (v) => {
    if (v === "1" || v.toUpperCase() === "V1") return "V1";
    if (v === "2" || v.toUpperCase() === "V2") return "V2";
    throw new BadValue(`parquet_version must be 1 or 2, got ${quoteName(v)}`);
  },
  parquet_compression_level: int(-2147483648n),
  parquet_row_group_size: int(1n),
  parquet_row_group_size_bytes: memory,
  target_file_size: memory,
  // Above what one commit may inline here, every insert DuckLake would inline is refused at commit:
  // refused now, naming why (docs/decisions/0405-inlining-limit-and-statement-bound.md).
  data_inlining_row_limit: (v) => {
    const n = int(0n)(v);
    if (BigInt(n) > BigInt(MAX_INLINED_ROWS_PER_COMMIT)) {
      throw new BadValue(
        `${n} is above ${MAX_INLINED_ROWS_PER_COMMIT}, the most rows one commit may inline on this server; set at most ${MAX_INLINED_ROWS_PER_COMMIT} (larger inserts are then written as Parquet files)`,
      );
    }
    return n;
  },
  require_commit_message: bool,
  rewrite_delete_threshold: (v) => {
    const n = Number(v);
    if (Number.isNaN(n) || n < 0 || n > 1) throw new BadValue(`rewrite_delete_threshold must be within 0..1`);
    // DuckLake stores the double as std::to_string prints it: six decimals, "0.100000" (decision 0612).
    return n.toFixed(6);
  },
  hive_file_pattern: bool,
  delete_older_than: intervalOrEmpty,
  expire_older_than: intervalOrEmpty,
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
  let value: string;
  try {
    value = validate(v.value);
  } catch (err) {
    // Every refusal names the option, whichever check made it.
    if (err instanceof BadValue) throw new InvalidRequest(`option ${v.name}: ${err.message}`);
    throw err;
  }
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
