/**
 * The commit verbs as a zod schema (the HTTP layer validates requests with it and builds OpenAPI from it)
 * and the TypeScript union derived from it. Entities are named as a user would: by schema/table/column
 * name, or by id.
 */
import { z } from "zod";
import { MAX_NAME_LENGTH, nameProblem } from "../name-rules.ts";
import {
  MAX_FLUSH_INTERVAL_MS,
  MAX_FLUSH_RECORDS,
  MAX_KEY_COLUMNS,
  MAX_KEY_INDEX_REBUILD_ROWS,
  MAX_OPS_PER_WRITE,
} from "../row-log-limits.ts";

const id = z.number().int().nonnegative();
/** Every name and name reference in a verb: the one name rule (catalog/name-rules.ts). */
const name = z
  .string()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .superRefine((value, ctx) => {
    const problem = nameProblem(value);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });

/** A schema by name, or `{id}`. */
export const SchemaRefSchema = z.union([name, z.object({ id })]);
/** A table or view by `{schema?, name}` (schema defaults to `main`) or `{id}`. */
export const RelationRefSchema = z.union([z.object({ schema: name.optional(), name }), z.object({ id })]);
/** A column by top-level name, by `{path}` through nested fields, or by `{id}`. */
export const ColumnRefSchema = z.union([name, z.object({ path: z.array(name).min(1) }), z.object({ id })]);
export const MacroRefSchema = RelationRefSchema;

export interface ColumnDef {
  name: string;
  type: string;
  nullable?: boolean | undefined;
  default?: string | undefined;
  defaultType?: "literal" | "expression" | undefined;
  children?: ColumnDef[] | undefined;
}

export const ColumnDefSchema: z.ZodType<ColumnDef> = z
  .lazy(
    () =>
      z.object({
        name,
        type: z.string().min(1),
        nullable: z.boolean().optional(),
        default: z.string().optional(),
        defaultType: z.enum(["literal", "expression"]).optional(),
        children: z.array(ColumnDefSchema).optional(),
      }),
    // A named schema: API descriptions refer to it instead of unrolling the recursion forever.
  )
  .meta({ id: "ColumnDef" });

const count = z.number().int().nonnegative();

export const ColumnStatsSchema = z.object({
  column: ColumnRefSchema,
  columnSizeBytes: count.optional(),
  valueCount: count.optional(),
  nullCount: count.optional(),
  min: z.string().nullable().optional(),
  max: z.string().nullable().optional(),
  containsNan: z.boolean().optional(),
  extraStats: z.string().nullable().optional(),
});

export const DataFileSpecSchema = z.object({
  path: z.string().min(1),
  pathIsRelative: z.boolean().optional(),
  format: z.string().optional(),
  recordCount: count,
  fileSizeBytes: count,
  footerSize: count.optional(),
  encryptionKey: z.string().optional(),
  columnStats: z.array(ColumnStatsSchema).optional(),
  partitionValues: z.array(z.object({ index: count, value: z.string().nullable() })).optional(),
});

export const DeleteFileSpecSchema = z.object({
  path: z.string().min(1),
  pathIsRelative: z.boolean().optional(),
  format: z.string().optional(),
  deleteCount: count,
  fileSizeBytes: count,
  footerSize: count.optional(),
  encryptionKey: z.string().optional(),
});

export const TagTargetSchema = z.union([
  z.object({ schema: SchemaRefSchema }),
  z.object({ table: RelationRefSchema, column: ColumnRefSchema.optional() }),
  z.object({ view: RelationRefSchema }),
]);

export const OptionScopeSchema = z
  .union([z.object({ schema: SchemaRefSchema }), z.object({ table: RelationRefSchema })])
  .optional();

/**
 * Any JSON value (nested types take arrays/objects); catalog/values/ checks it against its column's type.
 * `unknown` rather than a recursive JSON schema, which the OpenAPI generator cannot describe.
 */
const inlineValue = z.unknown();

/** One row operation of the ingestion log (catalog/ingest/). */
export const RowOpSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("insert"), row: z.record(z.string(), inlineValue) }).strict(),
  z.object({ op: z.literal("upsert"), row: z.record(z.string(), inlineValue) }).strict(),
  z.object({ op: z.literal("delete"), key: z.record(z.string(), inlineValue) }).strict(),
]);
export const WritePathSchema = z.enum(["wal", "lake"]);

/** Per table, the Parquet file (already PUT) holding a flush batch's rows in fold order. */
const PlannedFilesSchema = z
  .array(z.object({ tableId: id, columnIds: z.array(id).max(100_000), file: DataFileSpecSchema }))
  .max(MAX_FLUSH_RECORDS);

/** The Parquet files a writer PUT for a `lake` write's own rows (docs/decisions/0316-lake-write-parquet.md). */
const LakeWritePlanSchema = z.object({ files: PlannedFilesSchema });

export const VerbSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("create_schema"), name }),
  z.object({ op: z.literal("drop_schema"), schema: SchemaRefSchema }),
  z.object({
    op: z.literal("create_table"),
    schema: SchemaRefSchema.optional(),
    name,
    columns: z.array(ColumnDefSchema).min(1),
  }),
  z.object({ op: z.literal("rename_table"), table: RelationRefSchema, newName: name }),
  z.object({ op: z.literal("move_table"), table: RelationRefSchema, toSchema: SchemaRefSchema }),
  z.object({ op: z.literal("drop_table"), table: RelationRefSchema }),
  z.object({
    op: z.literal("add_column"),
    table: RelationRefSchema,
    column: ColumnDefSchema,
    parent: ColumnRefSchema.optional(),
  }),
  z.object({
    op: z.literal("rename_column"),
    table: RelationRefSchema,
    column: ColumnRefSchema,
    newName: name,
  }),
  z.object({
    op: z.literal("alter_column"),
    table: RelationRefSchema,
    column: ColumnRefSchema,
    type: z.string().min(1).optional(),
    default: z.string().nullable().optional(),
    defaultType: z.enum(["literal", "expression"]).optional(),
    nullable: z.boolean().optional(),
  }),
  z.object({ op: z.literal("drop_column"), table: RelationRefSchema, column: ColumnRefSchema }),
  z.object({
    op: z.literal("create_view"),
    schema: SchemaRefSchema.optional(),
    name,
    sql: z.string().min(1),
    dialect: z.string().optional(),
    columnAliases: z.string().optional(),
  }),
  z.object({
    op: z.literal("alter_view"),
    view: RelationRefSchema,
    sql: z.string().min(1),
    dialect: z.string().optional(),
  }),
  z.object({ op: z.literal("rename_view"), view: RelationRefSchema, newName: name }),
  z.object({ op: z.literal("drop_view"), view: RelationRefSchema }),
  z.object({
    op: z.literal("create_macro"),
    schema: SchemaRefSchema.optional(),
    name,
    type: z.enum(["scalar", "table"]).optional(),
    impls: z
      .array(
        z.object({
          sql: z.string().min(1),
          dialect: z.string().optional(),
          parameters: z
            .array(
              z.object({
                name,
                type: z.string().optional(),
                default: z.string().optional(),
                /** The default's type as DuckLake records it (e.g. `int32`); `unknown` when omitted. */
                defaultType: z.string().optional(),
              }),
            )
            .optional(),
        }),
      )
      .min(1),
  }),
  z.object({ op: z.literal("drop_macro"), macro: MacroRefSchema }),
  z.object({
    op: z.literal("set_partitioning"),
    table: RelationRefSchema,
    columns: z.array(z.object({ column: ColumnRefSchema, transform: z.string().optional() })).min(1),
  }),
  z.object({ op: z.literal("clear_partitioning"), table: RelationRefSchema }),
  z.object({
    op: z.literal("set_sorting"),
    table: RelationRefSchema,
    keys: z
      .array(
        z.object({
          expression: z.string().min(1),
          dialect: z.string().optional(),
          direction: z.enum(["ASC", "DESC"]).optional(),
          nulls: z.enum(["NULLS_FIRST", "NULLS_LAST"]).optional(),
        }),
      )
      .min(1),
  }),
  z.object({ op: z.literal("clear_sorting"), table: RelationRefSchema }),
  z.object({ op: z.literal("register_data_file"), table: RelationRefSchema, file: DataFileSpecSchema }),
  z.object({ op: z.literal("expire_data_file"), table: RelationRefSchema, dataFileId: id }),
  z.object({
    op: z.literal("register_delete_file"),
    table: RelationRefSchema,
    dataFileId: id,
    file: DeleteFileSpecSchema,
  }),
  z.object({ op: z.literal("expire_delete_file"), table: RelationRefSchema, deleteFileId: id }),
  z.object({
    op: z.literal("set_table_stats"),
    table: RelationRefSchema,
    recordCount: count.optional(),
    fileSizeBytes: count.optional(),
  }),
  z.object({
    op: z.literal("set_column_stats"),
    table: RelationRefSchema,
    column: ColumnRefSchema,
    containsNull: z.boolean().nullable().optional(),
    containsNan: z.boolean().nullable().optional(),
    min: z.string().nullable().optional(),
    max: z.string().nullable().optional(),
    extraStats: z.string().nullable().optional(),
  }),
  z.object({ op: z.literal("set_tag"), target: TagTargetSchema, key: name, value: z.string().nullable() }),
  z.object({ op: z.literal("remove_tag"), target: TagTargetSchema, key: name }),
  z.object({ op: z.literal("set_comment"), target: TagTargetSchema, comment: z.string().nullable() }),
  z.object({ op: z.literal("set_option"), scope: OptionScopeSchema, name, value: z.string() }),
  z.object({ op: z.literal("unset_option"), scope: OptionScopeSchema, name }),
  z.object({
    op: z.literal("inline_insert"),
    table: RelationRefSchema,
    rows: z.array(z.record(z.string(), inlineValue)).min(1),
  }),
  z.object({
    op: z.literal("inline_delete"),
    table: RelationRefSchema,
    rowIds: z.array(id).optional(),
    fileDeletes: z.array(z.object({ dataFileId: id, positions: z.array(id).min(1) })).optional(),
  }),
  z.object({
    op: z.literal("flush_inlined"),
    table: RelationRefSchema,
    /** Inlined rows up to this row id move into `file` (give both, or neither when only merging deletes). */
    throughRowId: id.optional(),
    file: DataFileSpecSchema.optional(),
    /** Marks the flushed rows that were deleted while inlined. */
    deleteFile: DeleteFileSpecSchema.optional(),
    /**
     * Per Parquet data file: the delete file holding its inlined deletes merged with its live delete file
     * (which this replaces), as DuckLake's flush writes them.
     */
    fileDeletes: z.array(z.object({ dataFileId: id, file: DeleteFileSpecSchema })).optional(),
  }),
  z.object({
    op: z.literal("merge_adjacent_files"),
    table: RelationRefSchema,
    /**
     * The live data files merged (no deletes, one partition), in the merged file's row order: DuckLake's,
     * by begin snapshot, row id start, file id (docs/decisions/0322-compaction-output.md).
     */
    dataFileIds: z.array(id).min(2),
    /** The merged file: the inputs' rows with `_ducklake_internal_snapshot_id` (and row ids unless adjacent). */
    file: DataFileSpecSchema,
  }),
  z.object({
    op: z.literal("rewrite_data_files"),
    table: RelationRefSchema,
    /** The live data files rewritten without their deleted rows (one partition, each with deletes). */
    dataFileIds: z.array(id).min(1),
    /** The rewritten file, rows carrying `_ducklake_internal_row_id`; absent when every row was deleted. */
    file: DataFileSpecSchema.optional(),
    /** The lowest row id the rewritten file holds (with `file`). */
    rowIdStart: id.optional(),
  }),
  z.object({
    op: z.literal("rows_write"),
    table: RelationRefSchema,
    ops: z.array(RowOpSchema).min(1).max(MAX_OPS_PER_WRITE),
    writePath: WritePathSchema.optional(),
    /**
     * A `lake` write the writer planned and PUT Parquet for (docs/decisions/0316-lake-write-parquet.md):
     * the file holding this write's surviving rows. Not part of the request's identity.
     */
    lakePlan: LakeWritePlanSchema.optional(),
  }),
  z.object({
    op: z.literal("rows_truncate"),
    table: RelationRefSchema,
    writePath: WritePathSchema.optional(),
  }),
  z.object({
    op: z.literal("rows_flush"),
    maxRecords: z.number().int().min(1).max(MAX_FLUSH_RECORDS).optional(),
    /** A writer's plan (docs/decisions/0313-rows-flush-parquet.md): the watermark it was made at... */
    expectDrained: count.optional(),
    /** ...the newest sequence number it drains... */
    through: count.optional(),
    /** ...and per table, the Parquet file (already PUT) holding the batch's rows in fold order. */
    files: PlannedFilesSchema.optional(),
  }),
  z.object({
    op: z.literal("rows_dead_letter"),
    /** The record to move aside: the next one after the drained watermark (docs/decisions/0314-dead-letters.md). */
    seq: z.number().int().min(1),
    expectDrained: count,
    code: z.string().min(1).max(200),
    message: z.string().max(10_000),
  }),
  z.object({
    op: z.literal("rows_dead_letter_replay"),
    /** Appends the dead letter at `seq` to the log again (docs/decisions/0317-dead-letter-replay.md). */
    seq: z.number().int().min(1),
  }),
  z.object({
    op: z.literal("rows_dead_letter_discard"),
    seq: z.number().int().min(1),
  }),
  z.object({
    op: z.literal("rows_key_index"),
    /** Replaces the table's key index (docs/decisions/0315-key-index-rebuild.md). */
    table: RelationRefSchema,
    entries: z
      .array(z.object({ key: z.array(inlineValue).max(MAX_KEY_COLUMNS), rowId: id }))
      .max(MAX_KEY_INDEX_REBUILD_ROWS),
  }),
  z.object({
    op: z.literal("set_row_key"),
    table: RelationRefSchema,
    columns: z.array(name).min(1).max(MAX_KEY_COLUMNS),
  }),
  z.object({
    op: z.literal("set_ingest_settings"),
    writePath: WritePathSchema.optional(),
    flushIntervalMs: z.number().int().min(0).max(MAX_FLUSH_INTERVAL_MS).optional(),
  }),
]);

export type Verb = z.infer<typeof VerbSchema>;
export type VerbOp = Verb["op"];
export type VerbOf<O extends VerbOp> = Extract<Verb, { op: O }>;
export type SchemaRef = z.infer<typeof SchemaRefSchema>;
export type RelationRef = z.infer<typeof RelationRefSchema>;
export type ColumnRef = z.infer<typeof ColumnRefSchema>;
export type TagTarget = z.infer<typeof TagTargetSchema>;
export type DataFileSpec = z.infer<typeof DataFileSpecSchema>;
export type DeleteFileSpec = z.infer<typeof DeleteFileSpecSchema>;

export const CommitRequestSchema = z.object({
  verbs: z.array(VerbSchema),
  author: z.string().optional(),
  message: z.string().optional(),
  extraInfo: z.string().optional(),
  idempotencyKey: z.string().min(1).max(256).optional(),
});
export type CommitRequest = z.infer<typeof CommitRequestSchema>;
