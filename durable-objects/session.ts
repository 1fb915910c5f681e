/**
 * The lake's session: a lazy, memoised open (concurrent first requests share one; a failed open is not
 * memoised), fencing any previous writer, and what an open session answers (the durable head, the
 * checkpoints and the snapshots they pin). A deleted lake found on the way is reported to the front.
 */
import {
  AlreadyExists,
  commitLookupRanges,
  head,
  lakeDataUrl,
  NotFound,
  openCatalog,
  quoteName,
  storePartitionCuts,
} from "../catalog/index.ts";
import type { CheckpointWriter, Store } from "../storage/api.ts";
import { CodedError, LakeDeleted, OpenRaced, StoreUnavailable } from "../storage/errors.ts";
import { LakeStore, openCheckpoint, openWriter } from "../storage/index.ts";
import { lakeState } from "../storage/lakes.ts";
import { deletedError, Unavailable } from "./errors.ts";
import { graceOf } from "./options.ts";
import { FlushPacer } from "./pacer.ts";
import type { LakeRecord } from "./registry.ts";
import type { HeadAnswer, Session, WriterHost } from "./types.ts";

/** A takeover this soon after the previous writer's last manifest write is reported as a misconfiguration. */
const SUSPICIOUS_TAKEOVER_MS = 10 * 60_000;

export interface OpenOptions {
  dataPath?: string;
  flushSpacingMs?: number;
  /** ATTACH … (ENCRYPTED): the catalog keeps each file's key (docs/decisions/0440-commit-space.md). */
  encrypted?: boolean;
}

/** What the session reports to the front (it never calls another part). */
export interface SessionEvents {
  /** R2 says the lake is deleted (a delete whose answer was lost, or another instance's). */
  deletedFound(deletedAt: number): void;
  /** A flush of the store landed (the store may now ask for maintenance). */
  flushed(store: Store): void;
  /** A flush nobody waits on failed. */
  flushFailed(e: unknown): void;
}

export class SessionHost {
  session: Session | undefined;
  opening: Promise<Session> | undefined;

  constructor(
    private readonly host: WriterHost,
    private readonly events: SessionEvents,
  ) {}

  /** Starts the open unless one is under way (or done), then awaits it. */
  ensure(create: boolean, options: OpenOptions): Promise<Session> {
    this.opening ??= this.open(create, options);
    return this.settle();
  }

  /** Whether an open under way (or done) found the lake; a NotFound open answers false. */
  async exists(): Promise<boolean> {
    if (!this.opening) return false;
    return this.opening.then(
      () => true,
      (e) => {
        if (e instanceof NotFound) return false;
        throw e;
      },
    );
  }

  private async settle(): Promise<Session> {
    const opening = this.opening;
    if (opening === undefined) throw new Unavailable("the writer is not opening");
    try {
      const s = await opening;
      this.session = s;
      return s;
    } catch (e) {
      // A failed open is not memoised: the next request tries again.
      if (this.opening === opening) this.opening = undefined;
      throw e;
    }
  }

  private deleted(create: boolean, deletedAt: number | undefined): CodedError {
    const at = deletedAt ?? this.host.now();
    return deletedError(this.host.lake, create, at, graceOf(this.host.tunables, this.host.registry.get()));
  }

  private async open(create: boolean, options: OpenOptions): Promise<Session> {
    const { lake, bucket, registry } = this.host;
    const rec = registry.get();
    if (rec?.state === "deleted") throw this.deleted(create, rec.deletedAt);
    try {
      return await this.openSession(create, options, rec);
    } catch (e) {
      if (!(e instanceof LakeDeleted)) throw e;
      // The registry still said live but R2 holds the marker (a delete whose answer was lost): learn its
      // time, record it and re-arm removal, so the lake is fully deleted from now on.
      const st = await lakeState(bucket, lake);
      if (st.state !== "deleted") throw e;
      this.events.deletedFound(st.deletedAt);
      throw this.deleted(create, st.deletedAt);
    }
  }

  private async openSession(
    create: boolean,
    options: OpenOptions,
    rec: LakeRecord | undefined,
  ): Promise<Session> {
    const { lake, bucket, registry, clock } = this.host;
    const t0 = clock.now();
    if (rec?.state === "live") {
      if (create) throw new AlreadyExists(`lake ${quoteName(lake)} already exists`);
    } else {
      const st = await lakeState(bucket, lake).catch((e: unknown) => {
        if (e instanceof CodedError) throw e;
        throw new StoreUnavailable(
          `could not learn whether lake ${quoteName(lake)} exists (${String(e)}); retry`,
          {
            cause: e,
          },
        );
      });
      if (st.state === "deleted") {
        this.events.deletedFound(st.deletedAt);
        throw this.deleted(create, st.deletedAt);
      }
      if (st.state === "absent" && !create)
        throw new NotFound(`lake ${quoteName(lake)} does not exist; create it first`);
      if (st.state === "live" && create) throw new AlreadyExists(`lake ${quoteName(lake)} already exists`);
    }
    const store = await this.openStore(rec?.epoch);
    const catalog = await openCatalog(store, {
      now: this.host.now,
      ...(this.host.tunables.idempotencyTtlMs !== undefined
        ? { idempotencyTtlMs: this.host.tunables.idempotencyTtlMs }
        : {}),
      ...(options.dataPath !== undefined ? { dataPath: options.dataPath } : {}),
      // Where the writer reaches: a lake elsewhere registers added files where DuckDB put them (0601).
      ownDataPath: lakeDataUrl(this.host.bucketName, lake),
      ...(options.encrypted === true ? { encrypted: true } : {}),
    });
    // The bootstrap batch is flushed before anyone is told the lake exists.
    if (catalog.bootstrapped) await store.flush();
    const spacing = options.flushSpacingMs ?? rec?.flushSpacingMs ?? this.host.tunables.flushSpacingMs;
    registry.put({
      ...(registry.get() ?? {}),
      lake,
      state: "live",
      epoch: store.epoch,
      ...(options.flushSpacingMs !== undefined ? { flushSpacingMs: options.flushSpacingMs } : {}),
    });
    const pacer = new FlushPacer(() => this.flushStore(store), { spacingMs: spacing, clock });
    this.host.log("info", {
      msg: "lake writer open",
      lake,
      epoch: store.epoch,
      bootstrapped: catalog.bootstrapped,
      position: store.position,
      ms: Math.round(clock.now() - t0),
    });
    return { store, catalog, pacer };
  }

  private async openStore(heldEpoch: number | undefined): Promise<Store> {
    const { lake, bucket, identity, tunables } = this.host;
    const options = {
      identity,
      now: this.host.now,
      ...(heldEpoch !== undefined ? { heldEpoch } : {}),
      ...(tunables.storeRetry ? { retry: tunables.storeRetry } : {}),
      ...(tunables.storeMaintenance ? { maintenance: tunables.storeMaintenance } : {}),
      // The first commit's lookups, fetched beside the tail reads and the fence PUT
      // (docs/decisions/0171-wake-prefetch.md).
      prefetch: commitLookupRanges(),
      // The catalog's append-only log gets partitions of its own, which run merges move rather than rewrite
      // (docs/decisions/0186-partition-moves.md).
      partitionCuts: storePartitionCuts(),
    };
    let store: Store;
    try {
      store = await openWriter(bucket, lake, options);
    } catch (e) {
      // Two openers raced and this one lost; opening again takes over from the winner.
      if (!(e instanceof OpenRaced)) throw e;
      store = await openWriter(bucket, lake, { ...options, heldEpoch: undefined });
    }
    const t = store.takeover;
    if (t !== undefined && t.identity !== "" && t.identity !== identity) {
      const ago = this.host.now() - t.writtenAt;
      this.host.log(ago < SUSPICIOUS_TAKEOVER_MS ? "error" : "warn", {
        msg:
          ago < SUSPICIOUS_TAKEOVER_MS
            ? "lake taken over from a different writer identity shortly after it wrote: two deployments probably share this bucket, and their writers will keep fencing each other"
            : "lake taken over from a different writer identity",
        lake,
        previousIdentity: t.identity,
        previousEpoch: t.epoch,
        msSincePreviousWrite: ago,
      });
    }
    return store;
  }

  private flushStore(store: Store): Promise<void> {
    return store.flush().then(
      () => this.events.flushed(store),
      // Waiters learn this through their own durability handles; this covers a flush nobody waits on.
      (e: unknown) => this.events.flushFailed(e),
    );
  }
}

/** The head as of the newest durable, published cut. */
export async function durableHead(s: Session): Promise<HeadAnswer> {
  // An empty transaction commits trivially at its begin position; its handle settles once that cut
  // is durable, so the head reported is one a reader can already see.
  const tx = s.store.begin();
  try {
    const h = await head(tx);
    const handle = tx.commit();
    await handle.durable;
    return { snapshotId: h.snapshot_id, batchCount: h.batch_count, position: h.position };
  } finally {
    tx.abort();
  }
}

export function checkpointsOf(s: Session): CheckpointWriter {
  if (s.store instanceof LakeStore) return s.store;
  throw new Unavailable("this store does not mint checkpoints");
}

/**
 * The snapshot each live checkpoint pins (its cut's head) → the checkpoint's id: expire_snapshots
 * refuses to remove them (docs/decisions/0241-quack-expire-snapshots.md). A checkpoint minted after this
 * read pins the head of its time, which expire never removes, so reading before the commit is enough.
 */
export async function pinnedSnapshots(s: Session, host: WriterHost): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const c of await checkpointsOf(s).listCheckpoints()) {
    const view = await openCheckpoint(host.bucket, host.lake, c.id);
    out.set((await head(view)).snapshot_id, c.id);
  }
  return out;
}
