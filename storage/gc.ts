/**
 * Garbage collection of a lake's WAL segments, sorted tables, old manifests and released checkpoint
 * descriptors.
 *
 * What may go: only objects on the manifest's `unreferenced` list or in a GC ledger it references
 * (gc-ledger.ts: sealed batches of that list) — every object a manifest stops naming is recorded there,
 * with the time it stopped (memtable flush: the skipped segments; compaction: replaced
 * tables; every manifest write: the previous version; checkpoint delete/expiry: the descriptor). Tables no
 * manifest ever named (a crash or a lost PUT between writing a table and publishing it) are found by an
 * orphan sweep (one listing of `sst/`) and recorded the same way, so every deletion waits out the grace.
 *
 * A record is deleted only when all of these hold:
 *   1. it has been unreferenced for `gcGraceMs` (upload time is irrelevant);
 *   2. the cut the newest WAL segment names does not need it (its manifest, that manifest's tables, the
 *      segments from its tail start on);
 *   3. no live checkpoint (or one released less than the grace ago) needs it (checkpoints.ts);
 *   4. right before deleting, the newest manifest is still this writer's current version and the newest
 *      segment is still this writer's: a superseded writer's GC deletes nothing.
 * Then the deleted records leave the list through the next manifest version; a ledger is read only once
 * all its records are due, and its pinned remainder (if anything was deleted) is rewritten as a new
 * ledger, put before that manifest. Deleting twice is harmless (R2 deletes are idempotent), so a crash
 * anywhere only repeats work.
 */
import { checkpointPinnedKeys, pruneExpiredCheckpoints } from "./checkpoints.ts";
import { isLedgerKey, putLedger, readLedgers } from "./gc-ledger.ts";
import { gcPrefix, manifestKey, manifestPrefix, parseManifestKey, parseWalKey } from "./keys.ts";
import { type MaintenanceContext, throwIfFailed } from "./maintenance.ts";
import { type GcLedgerRef, ledgerRefs, type Manifest, type UnreferencedRecord } from "./manifest.ts";
import { publishedHead, readManifest } from "./recovery.ts";
import { readWithRetry } from "./retry.ts";
import { parseSstKey, sstPrefix } from "./sst/key.ts";

/** R2 deletes at most 1000 keys per call. */
const DELETE_BATCH = 1000;

export interface GcResult {
  deleted: number;
  /** Due records kept because the published cut or a checkpoint still needs them. */
  pinned: string[];
  /** True when a newer writer (or manifest) was found right before deleting: nothing was deleted. */
  superseded: boolean;
  orphansRecorded: number;
}

export function dueRecords(m: Manifest, now: number, graceMs: number): UnreferencedRecord[] {
  return m.unreferenced.filter((r) => r.since + graceMs <= now);
}

/** Ledgers whose every record is due: GC reads these. */
export function dueLedgers(m: Manifest, now: number, graceMs: number): GcLedgerRef[] {
  return ledgerRefs(m).filter((r) => r.sinceMax + graceMs <= now);
}

/** When the next record or ledger falls due (ignoring `skip`), including checkpoints that will expire. */
export function nextDueAt(m: Manifest, graceMs: number, skip: ReadonlySet<string>): number | undefined {
  let at: number | undefined;
  const consider = (t: number): void => {
    if (at === undefined || t < at) at = t;
  };
  for (const r of m.unreferenced) if (!skip.has(r.key)) consider(r.since + graceMs);
  for (const r of ledgerRefs(m)) if (!skip.has(r.key)) consider(r.sinceMax + graceMs);
  for (const c of m.checkpoints) if (c.expiresAt < Number.MAX_SAFE_INTEGER) consider(c.expiresAt + graceMs);
  return at;
}

/**
 * Lists `sst/` and `gc/` and records every table or ledger that neither the manifest (tables, ledgers)
 * nor its unreferenced records (inline or in ledgers) name.
 * Runs inside the maintenance queue, so none of this writer's own tables is between PUT and publish.
 * Recording another writer's in-flight table is harmless: if that writer is newer our manifest PUT
 * collides (nothing recorded), and if ours lands first theirs collides and the table stays unused.
 */
export async function sweepOrphans(ctx: MaintenanceContext): Promise<number> {
  const m = ctx.manifest();
  const refs = ledgerRefs(m);
  const sealed = (await readLedgers(ctx, refs)).flat();
  const known = new Set<string>([
    ...m.sortedTables.map((t) => t.key),
    ...m.unreferenced.map((r) => r.key),
    ...refs.map((r) => r.key),
    ...sealed.map((r) => r.key),
  ]);
  const orphans: string[] = [];
  const ours = (key: string): boolean => parseSstKey(key)?.lake === ctx.lake || isLedgerKey(ctx.lake, key);
  for (const prefix of [sstPrefix(ctx.lake), gcPrefix(ctx.lake)]) {
    let cursor: string | undefined;
    for (;;) {
      ctx.counters.r2Lists++;
      const page = await readWithRetry(ctx.retry, `listing ${prefix} of lake ${ctx.lake}`, () =>
        ctx.bucket.list({ prefix, ...(cursor ? { cursor } : {}) }),
      );
      for (const o of page.objects) if (!known.has(o.key) && ours(o.key)) orphans.push(o.key);
      if (!page.truncated || page.cursor === undefined) break;
      cursor = page.cursor;
    }
  }
  if (orphans.length > 0) {
    await ctx.writeManifest((cur) => {
      const since = ctx.now();
      const have = new Set([
        ...cur.sortedTables.map((t) => t.key),
        ...cur.unreferenced.map((r) => r.key),
        ...ledgerRefs(cur).map((r) => r.key),
        ...sealed.map((r) => r.key),
      ]);
      const add = orphans.filter((k) => !have.has(k)).map((key) => ({ key, since }));
      return { ...cur, unreferenced: [...cur.unreferenced, ...add] };
    });
    ctx.counters.orphansRecorded += orphans.length;
  }
  ctx.orphansPossible = false;
  return orphans.length;
}

/** One GC pass (see the file comment). */
export async function collectGarbage(ctx: MaintenanceContext): Promise<GcResult> {
  throwIfFailed(ctx);
  const result: GcResult = { deleted: 0, pinned: [], superseded: false, orphansRecorded: 0 };
  if (ctx.orphansPossible) result.orphansRecorded = await sweepOrphans(ctx);
  const grace = ctx.policy.gcGraceMs;
  const now = ctx.now();
  let m = ctx.manifest();
  if (m.checkpoints.some((c) => c.expiresAt <= now)) {
    m = await ctx.writeManifest((cur) => pruneExpiredCheckpoints(cur, now));
  }
  const inlineDue = dueRecords(m, now, grace);
  const ledgers = dueLedgers(m, now, grace);
  if (inlineDue.length === 0 && ledgers.length === 0) return result;
  ctx.counters.r2Gets += ledgers.length;
  const sealed = await readLedgers(ctx, ledgers);
  const due = [...inlineDue, ...sealed.flat()];

  // 2. The published cut (normally this writer's current manifest, or the one before it).
  ctx.counters.r2Lists++;
  const head = await publishedHead(ctx.bucket, ctx.lake, ctx.retry);
  const pinned = new Set<string>();
  let tailStart = Number.POSITIVE_INFINITY;
  if (head !== undefined) {
    tailStart = head.tailStart;
    pinned.add(manifestKey(ctx.lake, head.manifestVersion));
    if (head.manifestVersion !== m.version) {
      ctx.counters.r2Gets++;
      const cut = await readManifest(ctx.bucket, ctx.lake, head.manifestVersion, ctx.retry);
      for (const t of cut.sortedTables) pinned.add(t.key);
    }
  }
  // 3. Checkpoints.
  const cp = await checkpointPinnedKeys(ctx.bucket, ctx.lake, m, {
    now,
    graceMs: grace,
    cache: ctx.cache,
    retry: ctx.retry,
  });
  const doomedSet = new Set<string>();
  const kept = (key: string): boolean => {
    const seg = parseWalKey(ctx.lake, key);
    return pinned.has(key) || cp.has(key) || (seg !== undefined && seg >= tailStart);
  };
  for (const r of due) {
    if (kept(r.key)) result.pinned.push(r.key);
    else doomedSet.add(r.key);
  }
  // A ledger all of whose records are pinned is skipped like a pinned record (writer-maintenance.ts).
  ledgers.forEach((l, i) => {
    if ((sealed[i] ?? []).every((r) => kept(r.key))) result.pinned.push(l.key);
  });
  const doomed = [...doomedSet];
  if (doomed.length === 0) return result;

  // 4. Still the writer of the newest manifest and the newest segment?
  ctx.counters.r2Lists += 2;
  const [newest, head2] = await Promise.all([
    readWithRetry(ctx.retry, `listing manifests of lake ${ctx.lake}`, () =>
      ctx.bucket.list({ prefix: manifestPrefix(ctx.lake), limit: 1 }),
    ),
    publishedHead(ctx.bucket, ctx.lake, ctx.retry),
  ]);
  const newestVersion = newest.objects[0] ? parseManifestKey(ctx.lake, newest.objects[0].key) : undefined;
  if (
    ctx.failure() !== undefined ||
    newestVersion !== ctx.manifest().version ||
    head2 === undefined ||
    head2.epoch !== ctx.epoch ||
    head2.writer !== ctx.instance
  ) {
    result.superseded = true;
    return result;
  }
  for (let i = 0; i < doomed.length; i += DELETE_BATCH) {
    const batch = doomed.slice(i, i + DELETE_BATCH);
    ctx.counters.r2Deletes++;
    await readWithRetry(ctx.retry, `deleting unreferenced objects of lake ${ctx.lake}`, () =>
      ctx.bucket.delete(batch),
    );
    result.deleted += batch.length;
    ctx.counters.objectsDeleted += batch.length;
  }
  const gone = doomedSet;
  // Ledgers that lost records: dropped when empty, else their remainder is put as a new ledger first.
  const replaced = new Map<string, GcLedgerRef | undefined>();
  for (let i = 0; i < ledgers.length; i++) {
    const l = ledgers[i] as GcLedgerRef;
    const rest = (sealed[i] ?? []).filter((r) => !gone.has(r.key));
    if (rest.length === l.records) continue;
    replaced.set(l.key, rest.length === 0 ? undefined : await putLedger(ctx, rest));
  }
  try {
    await ctx.writeManifest((cur) => {
      const since = ctx.now();
      const refs: GcLedgerRef[] = [];
      for (const r of ledgerRefs(cur)) {
        if (!replaced.has(r.key)) refs.push(r);
        else {
          const next = replaced.get(r.key);
          if (next !== undefined) refs.push(next);
        }
      }
      const retired = [...replaced.keys()].map((key) => ({ key, since }));
      const unreferenced = [...cur.unreferenced.filter((r) => !gone.has(r.key)), ...retired];
      return pruneExpiredCheckpoints({ ...cur, unreferenced, gcLedgers: refs }, now);
    });
  } catch (e) {
    if (replaced.size > 0) ctx.orphansPossible = true;
    throw e;
  }
  ctx.counters.gcRuns++;
  return result;
}
