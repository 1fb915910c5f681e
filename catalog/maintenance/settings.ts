/**
 * The lake's maintenance settings. One home: DuckLake's own `ducklake_metadata` options at global scope
 * (set with the `set_option` verb, `CALL lake.set_option(...)` over Quack, or any DuckLake client), so the
 * thresholds are DuckLake's names with DuckLake's meaning (`data_inlining_row_limit`, `target_file_size`,
 * `rewrite_delete_threshold`, `expire_older_than`, `delete_older_than`) and only the on/off switches are
 * ours (`maintenance_<job>`; stock DuckLake 1.5.5 keeps an unknown key and lists it in `options()`).
 * Decision docs/decisions/0327-maintenance-settings.md.
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { InvalidRequest, quoteName } from "../errors.ts";
import { Kind, keys, OptionScope } from "../keys.ts";
import type { OptionRecord } from "../records.ts";
import { JOB_SWITCH } from "../verbs/ops/options.ts";
import type { JobName } from "./runs.ts";

/**
 * Defaults when the switch is unset: every job on, so a lake left alone under a stream of small writes
 * stays small (decision docs/decisions/0323-maintenance-defaults.md). Jobs 1-3 keep DuckLake's own
 * thresholds (`data_inlining_row_limit`, `target_file_size`, `rewrite_delete_threshold`); jobs 4-5 do
 * nothing by default: with `expire_older_than` unset every snapshot is kept, so nothing is ever
 * scheduled for deletion.
 */
export const JOB_DEFAULT_ON: Record<JobName, boolean> = {
  flush_inlined: true,
  merge_adjacent: true,
  rewrite_deletes: true,
  expire_snapshots: true,
  delete_files: true,
};

/** Grace of job 5 when `delete_older_than` is unset: a file waits this long after it is scheduled. */
export const DEFAULT_DELETE_GRACE_MS = 24 * 3600_000;

export interface MaintenanceSettings {
  enabled: Record<JobName, boolean>;
  /** Job 4: snapshots older than this are expired; null keeps every snapshot (DuckLake's default). */
  expireOlderThanMs: number | null;
  /** Job 5: a scheduled file is deleted once it has been scheduled this long. */
  deleteOlderThanMs: number;
  /** The raw global options (the per-job thresholds DuckLake defines, read by each job's planner). */
  options: Readonly<Record<string, string>>;
}

const UNIT_MS: Record<string, number> = {
  microsecond: 0.001,
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  // DuckDB's interval arithmetic counts a month as 30 days and a year as 12 months.
  month: 30 * 86_400_000,
  year: 360 * 86_400_000,
};

/** An interval option's text (`'7 days'`, as set_option normalised it) in ms. */
export function intervalMs(text: string): number {
  const m = /^\s*([0-9]+)\s*([a-z]+?)s?\s*$/i.exec(text);
  const unit = UNIT_MS[(m?.[2] ?? "").toLowerCase()];
  if (!m || unit === undefined)
    throw new InvalidRequest(`expected an interval such as '7 days', got ${quoteName(text)}`);
  return Math.floor(Number(m[1]) * unit);
}

export async function readGlobalOptions(view: ReadView): Promise<Record<string, string>> {
  const raw = await view.get(keys.current(Kind.option, OptionScope.global, 0));
  if (raw === undefined) return {};
  return decodeValue<OptionRecord>(ValueKind.option, raw, "global options").values;
}

export async function maintenanceSettings(view: ReadView): Promise<MaintenanceSettings> {
  const options = await readGlobalOptions(view);
  const enabled = {} as Record<JobName, boolean>;
  for (const [job, name] of Object.entries(JOB_SWITCH) as [JobName, string][]) {
    const v = options[name];
    enabled[job] = v === undefined ? JOB_DEFAULT_ON[job] : v === "true";
  }
  const expire = options.expire_older_than;
  const del = options.delete_older_than;
  return {
    enabled,
    // '' is DuckLake's "no default" (set_option accepts it): the same as unset here.
    expireOlderThanMs: expire === undefined || expire === "" ? null : intervalMs(expire),
    deleteOlderThanMs: del === undefined || del === "" ? DEFAULT_DELETE_GRACE_MS : intervalMs(del),
    options,
  };
}
