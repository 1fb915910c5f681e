/**
 * Isolating a poison record (docs/decisions/0314-dead-letters.md): a record the flusher cannot apply —
 * its batch fails with a member error, and the writer has narrowed the batch down to that one record — is
 * moved out of the log into the dead-letter subspace with the error it raised, and the drained watermark
 * steps past it, in one store batch. Nothing of it reaches DuckLake; readers stop seeing it in the tail;
 * `GET /v1/lakes/{lake}/dead-letters` lists it. A poison record can therefore delay the flusher by one
 * narrowing, never block the log.
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { Constraint, FlushPlanStale, NotFound } from "../errors.ts";
import { MAX_DEAD_LETTERS } from "../row-log-limits.ts";
import type { Assigned, VerbContext } from "../verbs/context.ts";
import { canonicalRow } from "../verbs/ops/inline.ts";
import type { VerbOf } from "../verbs/schema.ts";
import { tableShape } from "../verbs/shape-memo.ts";
import { ingestKeys } from "./keys.ts";
import { appendRecords } from "./log.ts";
import type { DeadLetterRecord } from "./records.ts";
import { readIngestHead, readTail, trimRecords, writeIngestHead } from "./state.ts";

/** Longest error text kept with a dead letter. */
const MAX_DEAD_LETTER_MESSAGE = 2_000;

async function countDeadLetters(ctx: VerbContext, stopAt: number): Promise<number> {
  let n = 0;
  for await (const _ of ctx.st.scan({ prefix: ingestKeys.deadLetterPrefix() })) {
    if (++n >= stopAt) break;
  }
  return n;
}

export async function rowsDeadLetter(ctx: VerbContext, v: VerbOf<"rows_dead_letter">): Promise<Assigned> {
  const head = await readIngestHead(ctx.st);
  const [rec] = await readTail(ctx.st, head.drained, 1);
  if (head.drained !== v.expectDrained || rec === undefined || rec.seq !== v.seq) {
    throw new FlushPlanStale(
      `record ${v.seq} is not the next one to flush (drained ${head.drained}, planned at ${v.expectDrained})`,
    );
  }
  if ((await countDeadLetters(ctx, MAX_DEAD_LETTERS)) >= MAX_DEAD_LETTERS) {
    throw new Constraint(
      `the lake already holds ${MAX_DEAD_LETTERS} dead-lettered records (MAX_DEAD_LETTERS); record ${v.seq} stays in the log and the flusher stops at it`,
    );
  }
  const letter: DeadLetterRecord = {
    ...rec,
    code: v.code,
    message: v.message.slice(0, MAX_DEAD_LETTER_MESSAGE),
  };
  ctx.st.put(ingestKeys.deadLetter(rec.seq), encodeValue(ValueKind.ingestDeadLetter, letter));
  await trimRecords(ctx.st, head.drained, rec.seq);
  writeIngestHead(ctx.st, { next_seq: head.next_seq, drained: rec.seq });
  return { drained: rec.seq, deadLettered: rec.seq };
}

/** Dead letters in sequence order after `after`, at most `limit`. */
export async function readDeadLetters(
  view: ReadView,
  after: number,
  limit: number,
): Promise<DeadLetterRecord[]> {
  const out: DeadLetterRecord[] = [];
  for await (const kv of view.scan({
    prefix: ingestKeys.deadLetterPrefix(),
    start: ingestKeys.deadLetter(after + 1),
  })) {
    out.push(decodeValue<DeadLetterRecord>(ValueKind.ingestDeadLetter, kv.value, "dead letter"));
    if (out.length >= limit) break;
  }
  return out;
}

async function readDeadLetter(ctx: VerbContext, seq: number): Promise<DeadLetterRecord> {
  const raw = await ctx.st.get(ingestKeys.deadLetter(seq));
  if (raw === undefined) throw new NotFound(`dead letter ${seq} does not exist (replayed or discarded?)`);
  return decodeValue<DeadLetterRecord>(ValueKind.ingestDeadLetter, raw, "dead letter");
}

/**
 * Replays a dead letter once the user fixed its cause (docs/decisions/0317-dead-letter-replay.md): the
 * record is checked against its table's rules now, exactly as an append checks a row, and appended to the
 * log again under a new sequence number (log order is the order of acknowledgement: the replay is a new
 * write, after every write acknowledged before it); the dead letter goes in the same store batch. A record
 * that still fails is refused with that error and stays.
 */
export async function rowsDeadLetterReplay(
  ctx: VerbContext,
  v: VerbOf<"rows_dead_letter_replay">,
): Promise<Assigned> {
  const letter = await readDeadLetter(ctx, v.seq);
  const { code: _code, message: _message, seq: _seq, ...record } = letter;
  const table = await ctx.table({ id: record.table_id });
  const shape = tableShape(table.table_id, await ctx.columns(table.table_id));
  const path = `deadLetters[${v.seq}]`;
  if (record.kind === "insert" || record.kind === "upsert") {
    record.row = canonicalRow(shape, record.row ?? {}, `${path}.row`);
  }
  const { first, last } = await appendRecords(ctx, [record]);
  ctx.st.delete(ingestKeys.deadLetter(v.seq));
  return { firstSeq: first, lastSeq: last, replayed: v.seq };
}

/** Discards a dead letter for good (docs/decisions/0317-dead-letter-replay.md). */
export async function rowsDeadLetterDiscard(
  ctx: VerbContext,
  v: VerbOf<"rows_dead_letter_discard">,
): Promise<Assigned> {
  await readDeadLetter(ctx, v.seq);
  ctx.st.delete(ingestKeys.deadLetter(v.seq));
  return { discarded: v.seq };
}
