/**
 * GC ledgers: what GC must remember, kept out of the manifest (docs/decisions/0160-gc-ledgers.md).
 *
 * Every object a manifest stops naming is recorded in the manifest's `unreferenced` list with the time it
 * stopped. Under a steady commit stream that list holds commit rate × GC grace records (every WAL segment,
 * every superseded manifest, every compacted table of the last ten minutes), and the manifest is rewritten
 * on every edit. So maintenance seals the inline records into an immutable ledger object once there are
 * `LEDGER_SEAL_RECORDS` of them and the manifest keeps only a reference `{key, records, sinceMin,
 * sinceMax}`. GC reads a ledger only once all its records are due (`sinceMax` + grace passed), deletes
 * what nothing pins, and rewrites the pinned remainder as a new ledger; a ledger that leaves the manifest
 * is itself recorded unreferenced and waits out the grace like everything else. When references pile up
 * (a long grace, a high rate, checkpoints pinning remainders) the smallest ledgers of one time bucket are
 * merged, so the reference list stays short too.
 *
 * Every guarantee stays where it was: a record is deleted only when gc.ts's four conditions hold; a
 * ledger is written (put-if-absent, a taken key = Fenced) before the manifest that names it, so a crash
 * leaves at worst an orphan ledger (the orphan sweep lists `gc/` too) while the records are still inline;
 * records carrying a released checkpoint's cut stay inline (checkpoints.ts reads them to pin that cut).
 * Readers never read ledgers.
 */
import { z } from "zod";
import type { ObjectCache } from "./cache.ts";
import { decodeChecksummedJson, encodeChecksummedJson } from "./checksummed-json.ts";
import { Corruption, Fenced } from "./errors.ts";
import { gcPrefix } from "./keys.ts";
import { type MaintenanceContext, newTableId } from "./maintenance.ts";
import { type GcLedgerRef, ledgerRefs, type Manifest, type UnreferencedRecord } from "./manifest.ts";
import { putOnce } from "./put-once.ts";
import { RECOVERY_CONCURRENCY } from "./recovery.ts";
import { type RetryPolicy, readWithRetry } from "./retry.ts";

/** Inline records that trigger a seal: ~5 KiB of manifest at most, one small PUT per 64 records. */
export const LEDGER_SEAL_RECORDS = 64;
/** References above which ledgers are merged (~5 KiB of manifest). */
export const MAX_LEDGER_REFS = 32;
/** Ledgers merged into one at a time. */
export const LEDGER_MERGE_FANIN = 8;
/** A merge never makes a ledger larger than this many records (~5 MiB): GC reads a ledger whole. */
export const MAX_LEDGER_RECORDS = 65_536;
/**
 * Ledgers merge only within one time bucket of width grace / 16 (at least 1 s), so a merged ledger's
 * records span at most a sixteenth of the grace: GC reads a ledger once its newest record is due, and
 * this bounds how much later than due its oldest records go (space, never safety). Ledgers that are
 * wholly due merge with each other freely.
 */
export const LEDGER_BUCKETS_PER_GRACE = 16;
const MIN_BUCKET_MS = 1_000;

const LEDGER_FORMAT_VERSION = 1;
const ledgerSchema = z.object({
  formatVersion: z.literal(LEDGER_FORMAT_VERSION),
  lake: z.string(),
  records: z.array(z.object({ key: z.string(), since: z.number().int().min(0) }).loose()),
});

const pad = (n: number): string => String(n).padStart(20, "0");

/** `lakes/<lake>/gc/<epoch>-<id>.json`: epoch and random id as for sorted tables, never reused. */
export const ledgerKey = (lake: string, epoch: number, id: number): string =>
  `${gcPrefix(lake)}${pad(epoch)}-${pad(id)}.json`;

export const isLedgerKey = (lake: string, key: string): boolean =>
  key.startsWith(gcPrefix(lake)) && /^\d{20}-\d{20}\.json$/.test(key.slice(gcPrefix(lake).length));

export function encodeLedger(lake: string, records: readonly UnreferencedRecord[]): Uint8Array {
  return encodeChecksummedJson("ledger", { formatVersion: LEDGER_FORMAT_VERSION, lake, records });
}

export function decodeLedger(bytes: Uint8Array, where: string): UnreferencedRecord[] {
  const parsed = ledgerSchema.safeParse(decodeChecksummedJson(bytes, "ledger", where));
  if (!parsed.success)
    throw new Corruption(`${where} is corrupt: invalid fields; restore the object or investigate`);
  return parsed.data.records;
}

/** Records that may leave the manifest: not a released checkpoint's (checkpoints.ts reads those inline). */
export const sealable = (r: UnreferencedRecord): boolean =>
  (r as { checkpoint?: unknown }).checkpoint === undefined;

const recordId = (r: UnreferencedRecord): string => `${r.since}\n${r.key}`;

export interface LedgerReadContext {
  bucket: MaintenanceContext["bucket"];
  lake: string;
  retry: RetryPolicy;
  cache: ObjectCache;
}

/** A referenced ledger's records (cached by key: ledgers are immutable). Missing = Corruption. */
export async function readLedger(ctx: LedgerReadContext, ref: GcLedgerRef): Promise<UnreferencedRecord[]> {
  const where = `GC ledger ${ref.key} of lake ${ctx.lake}`;
  const cached = await ctx.cache.get(ref.key);
  if (cached !== undefined) return decodeLedger(cached, where);
  const bytes = await readWithRetry(ctx.retry, `reading ${where}`, async () => {
    const o = await ctx.bucket.get(ref.key);
    return o === null ? null : new Uint8Array(await o.arrayBuffer());
  });
  if (bytes === null)
    throw new Corruption(`${where} is named by the manifest but missing; its records cannot be collected`);
  const records = decodeLedger(bytes, where);
  if (records.length !== ref.records)
    throw new Corruption(`${where} holds ${records.length} records, not ${ref.records}`);
  await ctx.cache.put(ref.key, bytes);
  return records;
}

/** Reads ledgers at most RECOVERY_CONCURRENCY at a time (the six-connection limit). */
export async function readLedgers(
  ctx: LedgerReadContext,
  refs: readonly GcLedgerRef[],
): Promise<UnreferencedRecord[][]> {
  const out: UnreferencedRecord[][] = new Array(refs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < refs.length) {
      const i = next++;
      out[i] = await readLedger(ctx, refs[i] as GcLedgerRef);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECOVERY_CONCURRENCY, refs.length) }, worker));
  return out;
}

/** Puts a new ledger (put-if-absent); another writer's bytes under our fresh key mean we are Fenced. */
export async function putLedger(
  ctx: MaintenanceContext,
  records: readonly UnreferencedRecord[],
): Promise<GcLedgerRef> {
  const key = ledgerKey(ctx.lake, ctx.epoch, newTableId());
  const sorted = [...records].sort((a, b) => a.since - b.since);
  ctx.counters.r2Puts++;
  let kind: "ours" | "theirs";
  try {
    kind = (await putOnce(ctx.bucket, key, encodeLedger(ctx.lake, sorted), undefined, ctx.retry)).kind;
  } catch (e) {
    ctx.orphansPossible = true;
    throw e;
  }
  if (kind === "theirs") {
    const err = new Fenced(
      `GC ledger ${key} was written by another writer of epoch ${ctx.epoch}; this writer is fenced and writes nothing more: discard it and reopen`,
    );
    ctx.fence(err);
    throw err;
  }
  ctx.counters.ledgersWritten++;
  return {
    key,
    records: sorted.length,
    sinceMin: sorted[0]?.since ?? 0,
    sinceMax: sorted.at(-1)?.since ?? 0,
  };
}

/** Writes a manifest edit; a failure after a ledger PUT leaves that ledger for the orphan sweep. */
async function publish(ctx: MaintenanceContext, edit: (m: Manifest) => Manifest): Promise<void> {
  try {
    await ctx.writeManifest(edit);
  } catch (e) {
    ctx.orphansPossible = true;
    throw e;
  }
}

export function sealDue(m: Manifest): boolean {
  let n = 0;
  for (const r of m.unreferenced) if (sealable(r) && ++n >= LEDGER_SEAL_RECORDS) return true;
  return false;
}

/** Moves the manifest's sealable inline records into one new ledger. True when a manifest was written. */
export async function sealLedger(ctx: MaintenanceContext): Promise<boolean> {
  const records = ctx.manifest().unreferenced.filter(sealable);
  if (records.length < LEDGER_SEAL_RECORDS) return false;
  const ref = await putLedger(ctx, records);
  const sealed = new Set(records.map(recordId));
  await publish(ctx, (cur) => ({
    ...cur,
    unreferenced: cur.unreferenced.filter((r) => !sealed.has(recordId(r))),
    gcLedgers: [...ledgerRefs(cur), ref],
  }));
  return true;
}

/** The ledgers the next merge would combine, or undefined when the reference list is short enough. */
export function mergeCandidates(m: Manifest, now: number, graceMs: number): GcLedgerRef[] | undefined {
  const refs = ledgerRefs(m);
  if (refs.length <= MAX_LEDGER_REFS) return undefined;
  const width = Math.max(MIN_BUCKET_MS, Math.floor(graceMs / LEDGER_BUCKETS_PER_GRACE));
  const groups = new Map<string, GcLedgerRef[]>();
  for (const r of refs) {
    const due = r.sinceMax + graceMs <= now;
    const b = Math.floor(r.sinceMin / width);
    if (!due && Math.floor(r.sinceMax / width) !== b) continue;
    const g = due ? "due" : String(b);
    groups.set(g, [...(groups.get(g) ?? []), r]);
  }
  let best: GcLedgerRef[] | undefined;
  for (const g of groups.values()) {
    const picked: GcLedgerRef[] = [];
    let total = 0;
    for (const r of [...g].sort((a, b) => a.records - b.records)) {
      if (picked.length >= LEDGER_MERGE_FANIN || total + r.records > MAX_LEDGER_RECORDS) break;
      picked.push(r);
      total += r.records;
    }
    if (picked.length >= 2 && (best === undefined || picked.length > best.length)) best = picked;
  }
  return best;
}

/** One merge of small ledgers into one. True when a manifest was written. */
export async function mergeLedgers(ctx: MaintenanceContext): Promise<boolean> {
  const group = mergeCandidates(ctx.manifest(), ctx.now(), ctx.policy.gcGraceMs);
  if (group === undefined) return false;
  const parts = await readLedgers(ctx, group);
  const ref = await putLedger(ctx, parts.flat());
  const gone = new Set(group.map((g) => g.key));
  await publish(ctx, (cur) => {
    const since = ctx.now();
    return {
      ...cur,
      unreferenced: [...cur.unreferenced, ...group.map((g) => ({ key: g.key, since }))],
      gcLedgers: [...ledgerRefs(cur).filter((r) => !gone.has(r.key)), ref],
    };
  });
  return true;
}
