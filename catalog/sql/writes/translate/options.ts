/**
 * `ducklake_metadata` rows and their updates: options, applied through the set_option verb so its
 * validation holds.
 */
import { ValueKind } from "../../../codec.ts";
import { applyVerb } from "../../../commit/apply.ts";
import { quoteName } from "../../../errors.ts";
import { Kind, keys, OptionScope } from "../../../keys.ts";
import type { OptionRecord } from "../../../records.ts";
import type { RowOp } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, type Cells, intOrNull, str, strOrNull } from "./cells.ts";

function optionKey(scope: string | null, scopeId: number | null): Uint8Array {
  if (scope === null) return keys.current(Kind.option, OptionScope.global, 0);
  return keys.current(Kind.option, scope === "schema" ? OptionScope.schema : OptionScope.table, scopeId ?? 0);
}

/** ducklake_metadata rows are options: the set_option verb applies them, so its validation holds. */
export async function insertOption(batch: Batch, r: Cells): Promise<void> {
  const key = str(r.key, "key");
  const value = str(r.value, "value");
  const scope = strOrNull(r.scope, "scope");
  const scopeId = intOrNull(r.scope_id, "scope_id");
  const k = optionKey(scope, scopeId);
  const prior = await batch.ctx.read<OptionRecord>(k, ValueKind.option, "option");
  if (prior?.values[key] !== undefined) throw bad(`option ${quoteName(key)} is already set at that scope`);
  await setOption(batch, key, value, scope, scopeId);
}

export async function updateOption(
  batch: Batch,
  op: Extract<RowOp, { op: "option_update" }>,
): Promise<number> {
  const prior = await batch.ctx.read<OptionRecord>(
    optionKey(op.scope, op.scopeId),
    ValueKind.option,
    "option",
  );
  if (prior?.values[op.key] === undefined) return 0;
  await setOption(batch, op.key, op.value, op.scope, op.scopeId);
  return 1;
}

async function setOption(
  batch: Batch,
  name: string,
  value: string,
  scope: string | null,
  scopeId: number | null,
): Promise<void> {
  const scopeRef =
    scope === null
      ? undefined
      : scope === "schema"
        ? { schema: { id: scopeId ?? -1 } }
        : scope === "table"
          ? { table: { id: scopeId ?? -1 } }
          : undefined;
  if (scope !== null && scopeRef === undefined)
    throw bad(`option scope ${quoteName(scope)} is not schema or table`);
  await applyVerb(batch.ctx, { op: "set_option", name, value, ...(scopeRef ? { scope: scopeRef } : {}) });
  const stored = await batch.ctx.read<OptionRecord>(optionKey(scope, scopeId), ValueKind.option, "option");
  if (stored?.values[name] !== value) {
    throw bad(
      `option ${quoteName(name)} = ${quoteName(value)} is not in the form DuckLake's set_option stores`,
    );
  }
}
