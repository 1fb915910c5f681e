/**
 * DuckLake's server-side commit (`ducklake_commit`) as a member of the commit core. DuckLake 1.5.5 stages
 * the commit's intent, not its catalog rows: new data and delete files with transaction-local ids and no
 * row ids, inlined rows as tuple text, deletes by row id, the snapshot its transaction read and the counters
 * it saw. Every value a commit derives from the head (snapshot id, file ids, row ids, table and column
 * stats, changes_made) is derived here, by the verbs, against the premise the group hands the member — so
 * the member lands exactly as a sequential commit of the same rows on that premise would: the rebase of a
 * data-only commit (docs/decisions/0260-staged-commit.md). What the premise cannot re-derive is refused:
 * a schema version or catalog-id counter other than the lake's (CommitConflict, which DuckLake's text
 * matching treats as a conflict), and a race lost to a commit the conflict matrix calls incompatible with
 * this one, measured from the snapshot the client's transaction read.
 */

import { decodeValue, ValueKind } from "../../codec.ts";
import { ourSide, theirSide } from "../../commit/group.ts";
import {
  type MemberEnv,
  type SelfStagedMember,
  type StagedMember,
  stageMember,
} from "../../commit/member.ts";
import { findConflict } from "../../conflict.ts";
import {
  CommitConflict,
  InvalidRequest,
  isMemberError,
  RetryCountExceeded,
  Unsupported,
} from "../../errors.ts";
import { dataPathPrefix } from "../../file-paths.ts";
import { readSnapshotsBetween } from "../../head.ts";
import { Kind, keys, OptionScope } from "../../keys.ts";
import type { DataFileRecord, OptionRecord, SnapshotRecord } from "../../records.ts";
import type { Staging } from "../../staging.ts";
import { NESTED } from "../../types.ts";
import { columnTree } from "../../values/index.ts";
import { type Assigned, VerbContext } from "../../verbs/context.ts";
import { dropDataFile, tableDirectory, tableOfDroppedFile } from "../../verbs/ops/files.ts";
import { inlineInsertPreserving } from "../../verbs/ops/inline.ts";
import { checkFileMapping, flattenNameMap, MAP_BY_NAME, writeNameMap } from "../../verbs/ops/name-maps.ts";
import { mergeColumnStats } from "../../verbs/ops/stats-support.ts";
import type { CommitRequest, Verb } from "../../verbs/schema.ts";
import { type SqlResult, T } from "../result.ts";
import { StagedRowsMember } from "./member.ts";
import type { Literal, RowOp } from "./parse.ts";
import { parseTupleText } from "./parse.ts";
import { compactionOps, isCompaction } from "./staged-compaction.ts";
import { isDeleteRewrite, replacedDeleteOps, replacesCommitted } from "./staged-deletes.ts";
import { stagedColumnStats, stagedCounts } from "./staged-file-rows.ts";
import { type AfterFlush, flushOps, isFlush } from "./staged-flush.ts";
import { stagedReader } from "./staged-literals.ts";
import { type FileMapping, fileMapping, type StagedNameMap, stagedNameMaps } from "./staged-name-map.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";
import { replaceDeleteFiles } from "./staged-replace.ts";
import { isRewrite, rewriteOps } from "./staged-rewrite.ts";
import { compactionRaceConflict, schemaRaceConflict } from "./staged-schema-race.ts";
import type { CommitText } from "./staged-snapshot.ts";
import { inlineValue } from "./translate.ts";
import { cellValue } from "./variant-literal.ts";

const STAGED = stagedReader("staged commit");

/**
 * The largest `max_retry_count` with which DuckLake's commit loop gives up after its first attempt (its
 * `finished_retrying` is `i + 1 >= max_retry_count`, true at i = 0 for 0 and 1). Above it the second
 * attempt re-reads the head and checks conflicts, which the rebase here does in one step
 * (docs/decisions/0720-staged-retry-count.md).
 */
export const SINGLE_ATTEMPT_RETRY_COUNT = 1;

/** Inlined rows of one table that keep the row ids of the versions they replace. */
interface Preserved {
  tableId: number;
  rows: { rowId: number; row: Record<string, unknown> }[];
}

function int(l: Literal | undefined, what: string): number {
  const n = l?.k === "num" ? Number(l.text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidRequest(`staged commit: ${what} is not an id`);
  return n;
}
function intOrNull(l: Literal | undefined, what: string): number | null {
  return l === undefined || l.k === "null" ? null : int(l, what);
}
function str(l: Literal | undefined, what: string): string {
  if (l?.k !== "str") throw new InvalidRequest(`staged commit: ${what} is not a string`);
  return l.v;
}
function strOrNull(l: Literal | undefined, what: string): string | null {
  return l === undefined || l.k === "null" ? null : str(l, what);
}
function flag(l: Literal | undefined): boolean {
  return l?.k === "bool" && l.v;
}
function isNull(l: Literal | undefined): boolean {
  return l === undefined || l.k === "null";
}

/** A staged row's value_count and null_count, both or neither, as DuckLake stores them (`stagedCounts`). */
function counted(r: StagedRow): { valueCount?: number; nullCount?: number } {
  const c = stagedCounts(r);
  return c === undefined ? {} : { valueCount: Number(c.values), nullCount: Number(c.nulls) };
}

/** A staged stats row (data file or inlined) as the verbs' column stats. */
function columnStats(r: StagedRow) {
  const column = { id: int(r.column_id, "column_id") };
  const size = intOrNull(r.column_size_bytes, "column_size_bytes");
  return {
    column,
    ...(size !== null ? { columnSizeBytes: size } : {}),
    ...counted(r),
    ...(flag(r.has_min) ? { min: strOrNull(r.min_value, "min_value") } : {}),
    ...(flag(r.has_max) ? { max: strOrNull(r.max_value, "max_value") } : {}),
    ...(flag(r.has_contains_nan) && !isNull(r.contains_nan) ? { containsNan: flag(r.contains_nan) } : {}),
    ...(isNull(r.extra_stats) ? {} : { extraStats: strOrNull(r.extra_stats, "extra_stats") }),
  };
}

/** The answer stock's `ducklake_commit` gives: one row of the committed snapshot, schema version, flushes. */
export function commitAnswer(
  snapshotId: number | null,
  schemaVersion: number,
  hadFlushes: boolean,
): SqlResult {
  return {
    columns: [
      { name: "committed_snapshot_id", type: T.BIGINT },
      { name: "committed_schema_version", type: T.BIGINT },
      { name: "had_flushes", type: T.BOOLEAN },
    ],
    rows: [[BigInt(snapshotId ?? 0), BigInt(schemaVersion), hadFlushes]],
  };
}

export class StagedCommitMember implements SelfStagedMember {
  readonly kind = "staged-rows" as const;
  readonly idempotencyKey?: string;
  /** The commit's name maps (`ducklake_add_data_files`), in the order DuckLake gives them ids. */
  private readonly nameMaps: StagedNameMap[];

  constructor(
    private readonly batch: StagedBatch,
    idempotencyKey?: string,
  ) {
    if (idempotencyKey !== undefined) this.idempotencyKey = idempotencyKey;
    this.nameMaps = stagedNameMaps(batch);
    if (batch.rows.commit.length !== 1) {
      throw new InvalidRequest(
        `a staged commit carries one ducklake_staged_commit row, this one ${batch.rows.commit.length}`,
      );
    }
  }

  /** Stock's `had_flushes`: the commit flushed inlined rows (docs/decisions/0263-staged-flush.md). */
  get hadFlushes(): boolean {
    return isFlush(this.batch);
  }

  private get header(): StagedRow {
    return this.batch.rows.commit[0] as StagedRow;
  }

  async stage(group: Staging, premise: SnapshotRecord, env: MemberEnv): Promise<StagedMember> {
    const h = this.header;
    const base = intOrNull(h.transaction_snapshot_id, "transaction_snapshot_id") ?? premise.snapshot_id;
    if (base > premise.snapshot_id) {
      throw new InvalidRequest(
        `the staged commit read snapshot ${base}, past the lake's head ${premise.snapshot_id}`,
      );
    }
    const read = intOrNull(h.transaction_snapshot_id, "transaction_snapshot_id");
    const tries = this.batch.call.maxRetryCount;
    if (read !== null && read < premise.snapshot_id && tries <= SINGLE_ATTEMPT_RETRY_COUNT) {
      // Stock's first attempt writes snapshot read + 1, which a commit since has taken; with one attempt
      // allowed it stops there, whatever the race (docs/decisions/0720-staged-retry-count.md).
      throw new RetryCountExceeded(
        tries,
        `snapshot ${read + 1} was taken by another commit after this transaction read snapshot ${read} (the lake's head is ${premise.snapshot_id}); nothing was written`,
      );
    }
    const baseRecord = await this.snapshotAt(group, base);
    const sv = this.batch.call.schemaVersion;
    if (sv !== baseRecord.schema_version) {
      throw new CommitConflict(
        `the staged commit was authored at schema version ${sv}, but snapshot ${base} it read is at ${baseRecord.schema_version}`,
      );
    }
    const catalogId = intOrNull(h.transaction_next_catalog_id, "transaction_next_catalog_id");
    if (catalogId !== null && catalogId !== baseRecord.next_catalog_id) {
      throw new CommitConflict(
        `the staged commit saw next_catalog_id ${catalogId}, snapshot ${base} holds ${baseRecord.next_catalog_id}: a commit allocating catalog ids is not rebased`,
      );
    }
    const author = strOrNull(h.commit_author, "commit_author");
    const message = strOrNull(h.commit_message, "commit_message");
    const extra = strOrNull(h.commit_extra_info, "commit_extra_info");
    // The base is the snapshot the client's transaction read: what landed after it is what this commit
    // raced, classified by the same matrix as a lost head race.
    const raced =
      base < premise.snapshot_id ? await readSnapshotsBetween(group, base, premise.snapshot_id) : [];
    // A schema change since the commit read: DuckLake's conflict check on the tables it writes (decision 0614).
    if (sv !== premise.schema_version) {
      const conflict = schemaRaceConflict(this.batch, base, theirSide(raced).changes);
      if (conflict !== null) throw new CommitConflict(conflict);
    }
    if (raced.length > 0) {
      const conflict = compactionRaceConflict(this.batch, theirSide(raced).changes);
      if (conflict !== null) throw new CommitConflict(conflict);
    }
    let staged: StagedMember;
    try {
      const rows = await this.translatedRows(group, premise, env, { author, message, extraInfo: extra });
      if (rows !== undefined) {
        staged = await new StagedRowsMember(
          rows.ops,
          this.hashText(),
          this.idempotencyKey,
          new Map(),
          rows.after,
        ).stage(group, premise, env);
      } else {
        const { verbs, preserved, mappings } = await this.translate(
          new VerbContext(group.child(), premise, env),
        );
        const req: CommitRequest = { verbs };
        if (author !== null) req.author = author;
        if (message !== null) req.message = message;
        if (extra !== null) req.extraInfo = extra;
        if (this.idempotencyKey !== undefined) req.idempotencyKey = this.idempotencyKey;
        const mapIds = new Map<bigint, number>();
        staged = await stageMember(
          group,
          premise,
          env,
          req,
          async (ctx, assigned) => {
            await this.mapFiles(ctx, verbs, assigned, mappings, mapIds);
            await this.dropFiles(ctx);
            await replaceDeleteFiles(ctx, this.batch.rows.delete_file);
            for (const p of preserved) await inlineInsertPreserving(ctx, p.tableId, p.rows);
            await this.inlinedStatsAsStaged(group, ctx);
            await this.keepColumnStatsRows(group, ctx);
          },
          (ctx) => this.writeNameMaps(ctx, mapIds),
        );
      }
    } catch (e) {
      // A row this commit names was changed by a commit it raced (deleted twice, its file replaced): the
      // race, not the request, is why it fails.
      const touched = new Set(raced.flatMap((r) => r.x_touched_table_ids ?? []));
      const hit = this.tables().filter((t) => touched.has(t));
      if (isMemberError(e) && hit.length > 0) {
        throw new CommitConflict(
          `table ${hit.join(", ")} changed in snapshots ${raced.map((r) => r.snapshot_id).join(", ")} after this commit read snapshot ${base}`,
        );
      }
      throw e;
    }
    const ours = ourSide(staged);
    if (ours !== undefined && raced.length > 0) {
      const conflict = findConflict(ours, theirSide(raced));
      if (conflict !== null) throw new CommitConflict(conflict);
    }
    return staged;
  }

  /**
   * DuckLake's commit writes column stats of a table that already has stats with `UPDATE … FROM
   * new_values`, which updates the rows that exist and creates none: a column added after the table's
   * first rows never gets a stats row. The verbs create one; a staged commit leaves the rows as stock does.
   */
  private async keepColumnStatsRows(group: Staging, ctx: VerbContext): Promise<void> {
    for (const t of this.tables()) {
      if ((await group.get(keys.current(Kind.tableStats, t))) === undefined) continue;
      for (const c of await ctx.columns(t)) {
        const k = keys.current(Kind.tableColumnStats, t, c.column_id);
        if ((await group.get(k)) === undefined && (await ctx.st.get(k)) !== undefined) ctx.st.delete(k);
      }
    }
  }

  /**
   * DuckLake merges the column stats the client staged for inlined rows (min and max as DuckDB's text,
   * `nan` included; NaN tracked only when `has_contains_nan`), not stats recomputed from the values: the
   * verbs' merge is replaced by the same merge of the staged stats over the premise's record.
   */
  private async inlinedStatsAsStaged(group: Staging, ctx: VerbContext): Promise<void> {
    for (const r of this.batch.rows.inlined_column_stats) {
      const t = int(r.table_id, "table_id");
      const c = int(r.column_id, "column_id");
      const k = keys.current(Kind.tableColumnStats, t, c);
      const column = (await ctx.columns(t)).find((x) => x.column_id === c);
      // A row this member's verbs wrote (stats are updated in place, decision 0167, so its begin_snapshot
      // does not say who wrote it; the member's own layer does) is replaced by the staged merge. The verbs
      // keep no stats for a nested column's leaves (`mergeInlinedStats`: top-level primitives), so a leaf's
      // staged stats are merged as stock's commit merges them: `stats(l[1])` reads them (decision
      // docs/decisions/0412-suite-wrong-answers.md). keepColumnStatsRows then drops a row stock would not create.
      const leaf = column !== undefined && column.parent_column !== null && !NESTED.has(column.column_type);
      const verbsWrote = ctx.st.stagedHere(k) && (await ctx.st.get(k)) !== undefined;
      if (!verbsWrote && !leaf) continue;
      const type = column?.column_type ?? "varchar";
      if (verbsWrote) {
        const prior = await group.get(k);
        if (prior === undefined) ctx.st.delete(k);
        else ctx.st.put(k, prior);
        // The reset also undid this member's data files' merge into the same row (a MERGE INTO stages a
        // file and inlined rows in one commit): merge their staged stats again, or the table's bounds miss
        // the file's values and DuckDB's statistics-driven execution answers wrongly (decision 0412).
        const files = new Set(
          this.batch.rows.data_file
            .filter((f) => int(f.table_id, "table_id") === t)
            .map((f) => int(f.data_file_id, "data_file_id")),
        );
        for (const fs of this.batch.rows.data_file_column_stats) {
          if (files.has(int(fs.data_file_id, "data_file_id")) && int(fs.column_id, "column_id") === c)
            await mergeColumnStats(ctx, t, c, type, stagedColumnStats(fs, STAGED));
        }
      }
      await mergeColumnStats(ctx, t, c, type, stagedColumnStats(r, STAGED));
    }
  }

  /** The lake's data path (where files scheduled for deletion are stored relative to). */
  /**
   * A staged batch of one of the shapes the staged-row translations own (a flush, a rewrite, a merge, a
   * delete-file rewrite: docs/decisions/0263-staged-flush.md, 0265) as the rows DuckLake's client-side
   * commit would send for it on the premise; undefined for a data-only batch, which goes to the verbs.
   */
  private async translatedRows(
    group: Staging,
    premise: SnapshotRecord,
    env: MemberEnv,
    text: CommitText,
  ): Promise<{ ops: RowOp[]; after?: AfterFlush } | undefined> {
    const batch = this.batch;
    const shape = isFlush(batch)
      ? "flush"
      : isRewrite(batch)
        ? "rewrite"
        : isCompaction(batch)
          ? "compaction"
          : isDeleteRewrite(batch)
            ? "deletes"
            : undefined;
    if (shape === undefined) return undefined;
    if (this.nameMaps.length > 0) {
      throw new Unsupported(
        `a staged ${shape} commit with rows in ducklake_staged_name_map is not translated (docs/decisions/0600-staged-name-maps.md)`,
      );
    }
    const probe = new VerbContext(group.child(), premise, env);
    const common = {
      batch,
      premise,
      tableRelative: (t: number, path: string) => this.relativePath(probe, t, path, false),
      ...text,
    };
    switch (shape) {
      case "flush":
        return flushOps({ ...common, probe, dataPath: await this.dataPath(probe) });
      case "rewrite":
        return { ops: await rewriteOps({ ...common, probe }) };
      case "compaction":
        return { ops: await compactionOps({ ...common, dataPath: await this.dataPath(probe) }) };
      case "deletes":
        return { ops: await replacedDeleteOps({ ...common, dataPath: await this.dataPath(probe) }) };
    }
  }

  private async dataPath(probe: VerbContext): Promise<string> {
    const opts = await probe.read<OptionRecord>(
      keys.current(Kind.option, OptionScope.global, 0),
      ValueKind.option,
      "option",
    );
    return dataPathPrefix(opts?.values.data_path ?? "");
  }

  /** What an idempotency key is checked against: the staged rows and the call, canonically. */
  private hashText(): string {
    return JSON.stringify(this.batch);
  }

  /** The tables the staged rows name. */
  /**
   * `ducklake_staged_dropped_file`: a DELETE of every live row of those files drops them whole, each a live
   * file of a table in `ducklake_staged_tables_deleted_from` (docs/decisions/0248-quack-dropped-files.md).
   */
  private async dropFiles(ctx: VerbContext): Promise<void> {
    const rows = this.batch.rows;
    if (rows.dropped_file.length === 0) return;
    const tables = rows.tables_deleted_from.map((r) => int(r.table_id, "tables_deleted_from.table_id"));
    if (tables.length === 0) {
      throw new InvalidRequest("staged dropped files name no table in ducklake_staged_tables_deleted_from");
    }
    for (const d of rows.dropped_file) {
      const id = int(d.data_file_id, "dropped_file.data_file_id");
      const t = await tableOfDroppedFile(ctx, tables, id);
      await dropDataFile(ctx, await ctx.table({ id: t }), id);
    }
  }

  private tables(): number[] {
    const ids = new Set<number>();
    for (const r of this.batch.rows.tables_deleted_from) ids.add(int(r.table_id, "table_id"));
    for (const t of [
      "data_file",
      "delete_file",
      "inlined_data",
      "inlined_delete",
      "inlined_file_delete",
    ] as const) {
      for (const r of this.batch.rows[t]) ids.add(int(r.table_id, "table_id"));
    }
    return [...ids];
  }

  private async snapshotAt(group: Staging, id: number): Promise<SnapshotRecord> {
    const raw = await group.get(keys.snapshot(id));
    if (raw === undefined)
      throw new InvalidRequest(`the staged commit read snapshot ${id}, which does not exist`);
    return decodeValue<SnapshotRecord>(ValueKind.snapshot, raw, "snapshot");
  }

  /** The staged rows as verbs, in DuckLake's id order: data files, delete files, inlined rows, deletes. */
  private async translate(
    probe: VerbContext,
  ): Promise<{ verbs: Verb[]; preserved: Preserved[]; mappings: Map<number, FileMapping> }> {
    const rows = this.batch.rows;
    const out: Verb[] = [];
    // The mapping of each register_data_file verb, by its index in `out`.
    const mappings = new Map<number, FileMapping>();
    const preserved: Preserved[] = [];
    const statsByFile = new Map<number, StagedRow[]>();
    for (const s of rows.data_file_column_stats) {
      const id = int(s.data_file_id, "data_file_id");
      statsByFile.set(id, [...(statsByFile.get(id) ?? []), s]);
    }
    const partsByFile = new Map<number, { index: number; value: string | null }[]>();
    for (const p of rows.data_file_partition) {
      const id = int(p.local_file_id, "local_file_id");
      partsByFile.set(id, [
        ...(partsByFile.get(id) ?? []),
        {
          index: int(p.partition_column_idx, "partition_column_idx"),
          value: strOrNull(p.partition_value, "partition_value"),
        },
      ]);
    }
    for (const f of rows.data_file) {
      for (const c of ["row_id_start", "partial_max", "begin_snapshot", "compaction_id"] as const) {
        if (!isNull(f[c])) {
          throw new Unsupported(
            `staged data files with ${c} set (a flush or a compaction) are not translated yet`,
          );
        }
      }
      const mapping = fileMapping(f.mapping_id);
      if (mapping.kind === "staged" && !this.nameMaps.some((m) => m.localId === mapping.localId)) {
        throw new InvalidRequest(`a staged data file names mapping ${mapping.localId}, which is not staged`);
      }
      mappings.set(out.length, mapping);
      const local = int(f.data_file_id, "data_file_id");
      const t = int(f.table_id, "table_id");
      const path = await this.relativePath(probe, t, str(f.path, "path"), flag(f.path_is_relative));
      const footer = intOrNull(f.footer_size, "footer_size");
      const key = strOrNull(f.encryption_key, "encryption_key");
      out.push({
        op: "register_data_file",
        table: { id: t },
        file: {
          path: path.path,
          pathIsRelative: path.relative,
          format: str(f.file_format, "file_format"),
          recordCount: int(f.record_count, "record_count"),
          fileSizeBytes: int(f.file_size_bytes, "file_size_bytes"),
          ...(footer !== null ? { footerSize: footer } : {}),
          ...(key !== null ? { encryptionKey: key } : {}),
          columnStats: (statsByFile.get(local) ?? []).map(columnStats),
          ...(partsByFile.has(local) ? { partitionValues: partsByFile.get(local) } : {}),
        },
      });
    }
    // The register_data_file verbs above take file ids in staged order from the premise's counter, so a
    // delete file attached to a new file (a DELETE that also hits rows this transaction inserted) names
    // it by that id; stock numbers those delete files after the ones of existing files (decision 0616).
    const newFileId = new Map(
      rows.data_file.map((f, i) => [int(f.data_file_id, "data_file_id"), probe.premise.next_file_id + i]),
    );
    const attached = (d: StagedRow) => !isNull(d.attached_local_file_id);
    for (const d of [...rows.delete_file.filter((x) => !attached(x)), ...rows.delete_file.filter(attached)]) {
      // A replacing file's snapshots are stored by replaceDeleteFiles after the verbs (decision 0618).
      if (!replacesCommitted(d) && (!isNull(d.begin_snapshot) || !isNull(d.max_snapshot))) {
        throw new Unsupported(
          "staged delete files outside a flush commit (FLUSH source or attached to a new file) are not translated",
        );
      }
      const onto = attached(d)
        ? newFileId.get(int(d.attached_local_file_id, "attached_local_file_id"))
        : int(d.data_file_id, "data_file_id");
      if (onto === undefined)
        throw new InvalidRequest("a staged delete file is attached to a file this commit does not stage");
      if (str(d.source, "source") !== "REGULAR")
        throw new Unsupported(
          "staged delete files outside a flush commit (FLUSH source or attached to a new file) are not translated",
        );
      const t = int(d.table_id, "table_id");
      const path = await this.relativePath(probe, t, str(d.file_name, "file_name"), false);
      const footer = intOrNull(d.footer_size, "footer_size");
      const key = strOrNull(d.encryption_key, "encryption_key");
      out.push({
        op: "register_delete_file",
        table: { id: t },
        dataFileId: onto,
        file: {
          path: path.path,
          pathIsRelative: path.relative,
          format: str(d.format, "format"),
          deleteCount: int(d.delete_count, "delete_count"),
          fileSizeBytes: int(d.file_size_bytes, "file_size_bytes"),
          ...(footer !== null ? { footerSize: footer } : {}),
          ...(key !== null ? { encryptionKey: key } : {}),
        },
      });
    }
    for (const meta of rows.inlined_data) {
      const t = int(meta.table_id, "table_id");
      const tuples = rows.inlined_row
        .filter((r) => int(r.table_id, "table_id") === t)
        .sort((a, b) => int(a.row_order, "row_order") - int(b.row_order, "row_order"));
      if (tuples.length === 0) continue;
      const all = await probe.columns(t);
      const tops = all
        .filter((c) => c.parent_column === null)
        .sort((a, b) => a.column_order - b.column_order);
      const names = tops.map((c) => c.column_name);
      const nodes = tops.map((c) => columnTree(all, c));
      const named = (r: StagedRow) => {
        const values = parseTupleText(str(r.value_literals, "value_literals"));
        if (values.length !== names.length) {
          throw new InvalidRequest(
            `a staged row of table ${t} gives ${values.length} values for ${names.length} columns`,
          );
        }
        return Object.fromEntries(
          names.map((n, i) => [n, cellValue(nodes[i], values[i] as Literal, inlineValue)]),
        );
      };
      // An UPDATE keeps row ids: those rows are staged after the deletes of their old versions.
      const keeps = (r: StagedRow) => flag(meta.has_preserved_row_ids) && !isNull(r.preserved_row_id);
      const fresh = tuples.filter((r) => !keeps(r));
      const kept = tuples.filter(keeps);
      if (fresh.length > 0) out.push({ op: "inline_insert", table: { id: t }, rows: fresh.map(named) });
      if (kept.length > 0) {
        preserved.push({
          tableId: t,
          rows: kept.map((r) => ({ rowId: int(r.preserved_row_id, "preserved_row_id"), row: named(r) })),
        });
      }
    }
    const rowDeletes = new Map<number, number[]>();
    for (const d of rows.inlined_delete) {
      const t = int(d.table_id, "table_id");
      rowDeletes.set(t, [...(rowDeletes.get(t) ?? []), int(d.deleted_row_id, "deleted_row_id")]);
    }
    const fileDeletes = new Map<number, Map<number, number[]>>();
    for (const d of rows.inlined_file_delete) {
      const t = int(d.table_id, "table_id");
      const byFile = fileDeletes.get(t) ?? new Map<number, number[]>();
      const f = int(d.file_id, "file_id");
      byFile.set(f, [...(byFile.get(f) ?? []), int(d.deleted_row_id, "deleted_row_id")]);
      fileDeletes.set(t, byFile);
    }
    for (const t of new Set([...rowDeletes.keys(), ...fileDeletes.keys()])) {
      const ids = rowDeletes.get(t);
      const files = fileDeletes.get(t);
      out.push({
        op: "inline_delete",
        table: { id: t },
        ...(ids ? { rowIds: [...new Set(ids)].sort((a, b) => a - b) } : {}),
        ...(files
          ? {
              fileDeletes: [...files].map(([dataFileId, positions]) => ({
                dataFileId,
                positions: [...new Set(positions)].sort((a, b) => a - b),
              })),
            }
          : {}),
      });
    }
    return { verbs: out, preserved, mappings };
  }

  /**
   * The staged name maps, before any verb: DuckLake takes their ids from `next_file_id` ahead of the data
   * files' (`GetNewNameMaps` runs before `GetNewDataFiles`), one per map in local-id order.
   */
  private async writeNameMaps(ctx: VerbContext, mapIds: Map<bigint, number>): Promise<void> {
    for (const m of this.nameMaps) {
      const id = ctx.fileId();
      await writeNameMap(ctx, {
        mapping_id: id,
        table_id: m.tableId,
        type: MAP_BY_NAME,
        x_names: flattenNameMap(m.roots),
      });
      mapIds.set(m.localId, id);
    }
  }

  /** Each registered data file with a mapping gets its committed id (DuckLake's `RemapMappingIndex`). */
  private async mapFiles(
    ctx: VerbContext,
    verbs: readonly Verb[],
    assigned: readonly Assigned[],
    mappings: ReadonlyMap<number, FileMapping>,
    mapIds: ReadonlyMap<bigint, number>,
  ): Promise<void> {
    for (const [i, mapping] of mappings) {
      if (mapping.kind === "none") continue;
      const verb = verbs[i];
      const fileId = assigned[i]?.dataFileId;
      if (verb?.op !== "register_data_file" || typeof fileId !== "number") {
        throw new InvalidRequest(`staged data file ${i} was not registered`);
      }
      const t = (await ctx.table(verb.table)).table_id;
      const id = mapping.kind === "staged" ? (mapIds.get(mapping.localId) as number) : mapping.id;
      await checkFileMapping(ctx, t, id);
      const key = keys.current(Kind.dataFile, t, fileId);
      const rec = await ctx.read<DataFileRecord>(key, ValueKind.dataFile, "data file");
      if (!rec) throw new InvalidRequest(`staged data file ${fileId} was not registered`);
      ctx.write(key, ValueKind.dataFile, { ...rec, mapping_id: id });
    }
  }

  /** DuckLake writes a file's path relative to its table's directory when it lies inside it. */
  private async relativePath(
    probe: VerbContext,
    tableId: number,
    path: string,
    relative: boolean,
  ): Promise<{ path: string; relative: boolean }> {
    if (relative) return { path, relative };
    const table = await probe.table({ id: tableId });
    const { tableDir } = await tableDirectory(probe, table);
    const dir = tableDir.endsWith("/") ? tableDir : `${tableDir}/`;
    return path.startsWith(dir)
      ? { path: path.slice(dir.length), relative: true }
      : { path, relative: false };
  }
}
