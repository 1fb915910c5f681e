/**
 * set_tag / remove_tag / set_comment on schemas, tables, views and columns. A comment is the tag `comment`.
 * Tags are containers whose entries carry their own begin/end; changing one ends the old entry. On a table
 * or column it is `altered_table`, on a view `altered_view`; every tag change bumps schema_version.
 */
import { ValueKind } from "../../codec.ts";
import { NotFound, quoteName } from "../../errors.ts";
import { Kind, keys } from "../../keys.ts";
import type { TagContainer } from "../../records.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { TagTarget, VerbOf } from "../schema.ts";

async function resolveTarget(
  ctx: VerbContext,
  target: TagTarget,
): Promise<{ key: Uint8Array; note: () => void }> {
  if ("schema" in target) {
    const s = await ctx.schema(target.schema);
    return { key: keys.current(Kind.tag, s.schema_id), note: () => {} };
  }
  if ("view" in target) {
    const view = await ctx.view(target.view);
    return { key: keys.current(Kind.tag, view.view_id), note: () => ctx.change("alteredView", view.view_id) };
  }
  const table = await ctx.table(target.table);
  const note = () => {
    ctx.change("alteredTable", table.table_id);
    ctx.touch(table.table_id);
  };
  if (target.column === undefined) return { key: keys.current(Kind.tag, table.table_id), note };
  const col = ctx.column(table, await ctx.columns(table.table_id), target.column);
  return { key: keys.current(Kind.columnTag, table.table_id, col.column_id), note };
}

async function editTag(
  ctx: VerbContext,
  target: TagTarget,
  tagKey: string,
  value: string | null,
  remove: boolean,
): Promise<void> {
  const { key, note } = await resolveTarget(ctx, target);
  const container = (await ctx.read<TagContainer>(key, ValueKind.tagContainer, "tag")) ?? { entries: [] };
  const live = container.entries.find((e) => e.key === tagKey && e.end_snapshot === null);
  if (remove && !live) throw new NotFound(`tag ${quoteName(tagKey)} is not set on that object`);
  const entries = container.entries
    .filter((e) => e !== live || e.begin_snapshot !== ctx.snapshotId)
    .map((e) => (e === live ? { ...e, end_snapshot: ctx.snapshotId } : e));
  if (!remove) entries.push({ key: tagKey, value, begin_snapshot: ctx.snapshotId, end_snapshot: null });
  ctx.write(key, ValueKind.tagContainer, { entries } satisfies TagContainer);
  note();
  ctx.bumpSchema();
}

export async function setTag(ctx: VerbContext, v: VerbOf<"set_tag">): Promise<Assigned> {
  await editTag(ctx, v.target, v.key, v.value, false);
  return {};
}

export async function removeTag(ctx: VerbContext, v: VerbOf<"remove_tag">): Promise<Assigned> {
  await editTag(ctx, v.target, v.key, null, true);
  return {};
}

export async function setComment(ctx: VerbContext, v: VerbOf<"set_comment">): Promise<Assigned> {
  await editTag(ctx, v.target, "comment", v.comment, false);
  return {};
}
