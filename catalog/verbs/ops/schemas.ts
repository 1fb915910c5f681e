/** create_schema / drop_schema. Schema ids come from next_catalog_id; the list is conflict-checked as a whole. */
import { ValueKind } from "../../codec.ts";
import { AlreadyExists, Constraint, quoteName } from "../../errors.ts";
import { Kind, keys, NameSpace } from "../../keys.ts";
import type { SchemaRecord } from "../../records.ts";
import { type Assigned, pathFor, type VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";

export async function createSchema(ctx: VerbContext, v: VerbOf<"create_schema">): Promise<Assigned> {
  const existing = await ctx.lookupName(NameSpace.schema, 0, v.name);
  if (existing) throw new AlreadyExists(`schema ${quoteName(v.name)} already exists (id ${existing.id})`);
  const schemaId = ctx.catalogId();
  const uuid = ctx.env.uuid();
  ctx.putVersion<SchemaRecord>(Kind.schema, [schemaId], ValueKind.schema, {
    schema_id: schemaId,
    schema_uuid: uuid,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    schema_name: v.name,
    path: pathFor(v.name, uuid),
    path_is_relative: true,
  });
  await ctx.addNameEntry(NameSpace.schema, 0, { name: v.name, id: schemaId, kind: "schema" });
  ctx.createdSchema(v.name);
  ctx.bumpSchema();
  return { schemaId };
}

export async function dropSchema(ctx: VerbContext, v: VerbOf<"drop_schema">): Promise<Assigned> {
  const schema = await ctx.schema(v.schema);
  const relations = await ctx.listNames(NameSpace.relation, schema.schema_id, 1);
  const macros = await ctx.listNames(NameSpace.macro, schema.schema_id, 1);
  const inside = relations[0] ?? macros[0];
  if (inside) {
    throw new Constraint(
      `schema ${quoteName(schema.schema_name)} still holds ${inside.kind} ${quoteName(inside.name)}; drop its contents first`,
    );
  }
  ctx.endVersion(Kind.schema, [schema.schema_id], ValueKind.schema, schema);
  await ctx.removeNameEntry(NameSpace.schema, 0, schema.schema_name);
  await endTags(ctx, schema.schema_id);
  ctx.change("droppedSchemas", schema.schema_id);
  ctx.droppedSchemaNames.set(schema.schema_id, schema.schema_name);
  ctx.bumpSchema();
  return { schemaId: schema.schema_id };
}

/** Ends every live tag entry of an object (drops cascade to tags, as DuckLake's DropTables/DropViews do). */
export async function endTags(ctx: VerbContext, objectId: number): Promise<void> {
  const k = keys.current(Kind.tag, objectId);
  const container = await ctx.read<{ entries: { end_snapshot: number | null; begin_snapshot: number }[] }>(
    k,
    ValueKind.tagContainer,
    "tag",
  );
  if (!container) return;
  const entries = container.entries
    .filter((e) => !(e.end_snapshot === null && e.begin_snapshot === ctx.snapshotId))
    .map((e) => (e.end_snapshot === null ? { ...e, end_snapshot: ctx.snapshotId } : e));
  ctx.write(k, ValueKind.tagContainer, { entries });
}
