/** create_view / alter_view / rename_view / drop_view. Views share the relation namespace with tables. */
import { ValueKind } from "../../codec.ts";
import { Kind, NameSpace } from "../../keys.ts";
import type { ViewRecord } from "../../records.ts";
import { type Assigned, MAIN_SCHEMA, type VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";
import { endTags } from "./schemas.ts";

export async function createView(ctx: VerbContext, v: VerbOf<"create_view">): Promise<Assigned> {
  const schema = await ctx.schema(v.schema ?? MAIN_SCHEMA);
  await ctx.ensureRelationNameFree(schema, v.name);
  const viewId = ctx.catalogId();
  ctx.putVersion<ViewRecord>(Kind.view, [viewId], ValueKind.view, {
    view_id: viewId,
    view_uuid: ctx.env.uuid(),
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    schema_id: schema.schema_id,
    view_name: v.name,
    dialect: v.dialect ?? "duckdb",
    sql: v.sql,
    // DuckLake stores '' (not NULL) for a view without column aliases.
    column_aliases: v.columnAliases ?? "",
  });
  await ctx.addNameEntry(NameSpace.relation, schema.schema_id, { name: v.name, id: viewId, kind: "view" });
  ctx.createdName("createdViews", { schema: schema.schema_name, name: v.name }, schema.schema_id);
  ctx.bumpSchema();
  return { viewId };
}

export async function alterView(ctx: VerbContext, v: VerbOf<"alter_view">): Promise<Assigned> {
  const view = await ctx.view(v.view);
  ctx.replaceVersion(Kind.view, [view.view_id], ValueKind.view, view, {
    ...view,
    sql: v.sql,
    dialect: v.dialect ?? view.dialect,
  });
  ctx.change("alteredView", view.view_id);
  ctx.bumpSchema();
  return { viewId: view.view_id };
}

export async function renameView(ctx: VerbContext, v: VerbOf<"rename_view">): Promise<Assigned> {
  const view = await ctx.view(v.view);
  const schema = await ctx.schemaById(view.schema_id);
  if (v.newName.toLowerCase() !== view.view_name.toLowerCase())
    await ctx.ensureRelationNameFree(schema, v.newName);
  await ctx.removeNameEntry(NameSpace.relation, schema.schema_id, view.view_name);
  await ctx.addNameEntry(NameSpace.relation, schema.schema_id, {
    name: v.newName,
    id: view.view_id,
    kind: "view",
  });
  ctx.replaceVersion(Kind.view, [view.view_id], ValueKind.view, view, { ...view, view_name: v.newName });
  ctx.createdName("createdViews", { schema: schema.schema_name, name: v.newName }, schema.schema_id);
  ctx.bumpSchema();
  return { viewId: view.view_id };
}

export async function dropView(ctx: VerbContext, v: VerbOf<"drop_view">): Promise<Assigned> {
  const view = await ctx.view(v.view);
  ctx.endVersion(Kind.view, [view.view_id], ValueKind.view, view);
  await endTags(ctx, view.view_id);
  await ctx.removeNameEntry(NameSpace.relation, view.schema_id, view.view_name);
  ctx.change("droppedViews", view.view_id);
  ctx.bumpSchema();
  return { viewId: view.view_id };
}
