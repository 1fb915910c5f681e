/**
 * A Quack connection's pending flush of inlined rows. DuckLake's `ducklake_flush_inlined_data` sends
 * `DELETE FROM ducklake_inlined_data_<t>_<sv> WHERE begin_snapshot <= N` as a request of its own before the
 * commit that registers the flushed file; a stock server runs it at once, so the flushing transaction's own
 * reads see the rows only in its transaction-local file. Here the lone DELETE removes nothing (the flush
 * stays atomic: decision 0240) and instead marks the rows for that connection; its reads skip them, every
 * other connection still sees them, and the connection's next commit clears the mark (the flush's own
 * commit removes the rows for real). Decision: docs/decisions/0440-commit-space.md.
 */
import { decodeValue, encodeValue, ValueKind } from "../../codec.ts";
import type { MemberEnv, SelfStagedMember, StagedMember } from "../../commit/member.ts";
import { InvalidRequest } from "../../errors.ts";
import { hash53, keys } from "../../keys.ts";
import type { SnapshotRecord } from "../../records.ts";
import type { Staging } from "../../staging.ts";
import type { RowOp } from "./parse.ts";

/** Most inlined tables one connection may hold pending flushes of (DuckLake flushes one per table). */
export const MAX_FLUSH_MARKS_PER_CONNECTION = 10_000;

/** The stored mark: inlined table name → the flush's snapshot (rows beginning at or before it are hidden). */
export interface FlushMarkRecord {
  tables: Record<string, number>;
}

/** The store's id of a connection: a hash of its (already hashed) connection id. */
export function connectionKey(connection: string): Uint8Array {
  return keys.inlineFlushMark(hash53(connection));
}

async function readMark(st: Staging, k: Uint8Array): Promise<FlushMarkRecord | undefined> {
  const raw = await st.get(k);
  return raw === undefined
    ? undefined
    : decodeValue<FlushMarkRecord>(ValueKind.inlineFlushMark, raw, "inlined flush mark");
}

/** Records that `connection`'s lone flush DELETE removed `table`'s rows up to snapshot `upTo`. */
export async function markFlush(st: Staging, connection: string, table: string, upTo: number): Promise<void> {
  const k = connectionKey(connection);
  const tables = { ...((await readMark(st, k))?.tables ?? {}) };
  tables[table] = Math.max(tables[table] ?? 0, upTo);
  if (Object.keys(tables).length > MAX_FLUSH_MARKS_PER_CONNECTION) {
    throw new InvalidRequest(
      `a connection may flush at most ${MAX_FLUSH_MARKS_PER_CONNECTION} inlined tables before it commits`,
    );
  }
  st.put(k, encodeValue(ValueKind.inlineFlushMark, { tables } satisfies FlushMarkRecord));
}

/** `connection`'s commit landed: its pending flushes are settled (committed, or rolled back). */
export async function clearFlushMarks(st: Staging, connection: string): Promise<void> {
  const k = connectionKey(connection);
  if ((await st.get(k)) !== undefined) st.delete(k);
}

/** The inlined tables `connection`'s reads skip rows of: table name → rows beginning at or before it. */
export async function flushMarksOf(
  view: { get(key: Uint8Array): Promise<Uint8Array | undefined> },
  connection: string,
): Promise<Map<string, number>> {
  const raw = await view.get(connectionKey(connection));
  if (raw === undefined) return new Map();
  const rec = decodeValue<FlushMarkRecord>(ValueKind.inlineFlushMark, raw, "inlined flush mark");
  return new Map(Object.entries(rec.tables));
}

/**
 * `member` as one connection's request: a lone flush DELETE (no snapshot minted) marks its rows for the
 * connection; any commit of the connection that mints a snapshot clears its marks.
 */
export function withFlushMarks(
  member: SelfStagedMember,
  ops: readonly RowOp[] | null,
  connection: string,
): SelfStagedMember {
  return {
    kind: member.kind,
    ...(member.idempotencyKey !== undefined ? { idempotencyKey: member.idempotencyKey } : {}),
    async stage(group: Staging, premise: SnapshotRecord, env: MemberEnv): Promise<StagedMember> {
      const staged = await member.stage(group, premise, env);
      if (staged.result.replayed) return staged;
      if (staged.snapshot !== null) await clearFlushMarks(staged.layer, connection);
      else
        for (const op of ops ?? [])
          if (op.op === "flush_inlined") await markFlush(staged.layer, connection, op.table, op.upTo);
      return staged;
    },
  };
}
