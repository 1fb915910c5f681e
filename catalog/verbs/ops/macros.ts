/** create_macro / drop_macro (scalar or table macros with overloads; no alter: replace = drop + create). */
import { ValueKind } from "../../codec.ts";
import { AlreadyExists, NotFound, quoteName } from "../../errors.ts";
import { Kind, keys, NameSpace } from "../../keys.ts";
import type { MacroRecord } from "../../records.ts";
import { type Assigned, MAIN_SCHEMA, type VerbContext } from "../context.ts";
import type { RelationRef, VerbOf } from "../schema.ts";

export async function createMacro(ctx: VerbContext, v: VerbOf<"create_macro">): Promise<Assigned> {
  const schema = await ctx.schema(v.schema ?? MAIN_SCHEMA);
  const type = v.type ?? "scalar";
  const existing = await ctx.lookupName(NameSpace.macro, schema.schema_id, v.name, macroEntryKind(type));
  if (existing) {
    throw new AlreadyExists(
      `macro ${quoteName(schema.schema_name)}.${quoteName(v.name)} already exists (id ${existing.id})`,
    );
  }
  const macroId = ctx.catalogId();
  ctx.putVersion<MacroRecord>(Kind.macro, [macroId], ValueKind.macro, {
    macro_id: macroId,
    schema_id: schema.schema_id,
    macro_name: v.name,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    x_impls: v.impls.map((impl, i) => ({
      impl_id: i,
      dialect: impl.dialect ?? "duckdb",
      sql: impl.sql,
      type,
      x_parameters: (impl.parameters ?? []).map((p, j) => ({
        column_id: j,
        parameter_name: p.name,
        parameter_type: p.type ?? "unknown",
        // DuckLake writes the text 'NULL' and type 'unknown' for a parameter without a default.
        default_value: p.default ?? "NULL",
        default_value_type: p.default === undefined ? "unknown" : (p.defaultType ?? "unknown"),
      })),
    })),
  });
  await ctx.addNameEntry(NameSpace.macro, schema.schema_id, {
    name: v.name,
    id: macroId,
    kind: macroEntryKind(type),
  });
  ctx.createdName(
    type === "table" ? "createdTableMacros" : "createdScalarMacros",
    { schema: schema.schema_name, name: v.name },
    schema.schema_id,
  );
  ctx.bumpSchema();
  return { macroId };
}

/**
 * The name-index kind of a macro: a scalar and a table macro of one name coexist, as in DuckDB
 * (docs/decisions/0440-commit-space.md).
 */
export function macroEntryKind(type: string): "macro" | "table_macro" {
  return type === "table" ? "table_macro" : "macro";
}

/** Ends macro `m`'s live version and its name entry (of its kind); true for a table macro. */
export async function endMacro(ctx: VerbContext, m: MacroRecord): Promise<boolean> {
  ctx.endVersion(Kind.macro, [m.macro_id], ValueKind.macro, m);
  const isTable = m.x_impls.every((i) => i.type === "table");
  await ctx.removeNameEntry(
    NameSpace.macro,
    m.schema_id,
    m.macro_name,
    macroEntryKind(isTable ? "table" : "scalar"),
  );
  return isTable;
}

async function macroOf(ctx: VerbContext, ref: RelationRef): Promise<MacroRecord> {
  let id: number;
  if ("id" in ref) id = ref.id;
  else {
    const schema = await ctx.schema(ref.schema ?? MAIN_SCHEMA);
    const entry = await ctx.lookupName(NameSpace.macro, schema.schema_id, ref.name);
    if (!entry)
      throw new NotFound(`macro ${quoteName(schema.schema_name)}.${quoteName(ref.name)} does not exist`);
    id = entry.id;
  }
  const rec = await ctx.read<MacroRecord>(keys.current(Kind.macro, id), ValueKind.macro, "macro");
  if (!rec) throw new NotFound(`macro id ${id} does not exist (or was dropped)`);
  return rec;
}

export async function dropMacro(ctx: VerbContext, v: VerbOf<"drop_macro">): Promise<Assigned> {
  const m = await macroOf(ctx, v.macro);
  const isTable = await endMacro(ctx, m);
  ctx.change(isTable ? "droppedTableMacros" : "droppedScalarMacros", m.macro_id);
  ctx.bumpSchema();
  return { macroId: m.macro_id };
}
