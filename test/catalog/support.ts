/**
 * Helpers for catalog tests: the real store on the real miniflare bucket, and thin wrappers around it —
 * a read counter, and a racer that lands another real commit inside a transaction's window (the
 * deterministic way to lose a head race). Nothing here fakes the store.
 */
import { env } from "cloudflare:workers";
import {
  type Catalog,
  type CatalogOptions,
  type CommitRequest,
  head,
  openCatalog,
} from "../../catalog/index.ts";
import type { Bucket, Bytes, CommitHandle, ReadView, Store, Transaction } from "../../storage/api.ts";
import { openWriter } from "../../storage/index.ts";

let counter = 0;
export function lakeName(tag: string): string {
  counter++;
  return `cat-${tag}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function bucket(): Bucket {
  return env.BUCKET as unknown as Bucket;
}

export async function openStore(tag: string): Promise<Store> {
  return openWriter(bucket(), lakeName(tag));
}

export async function fresh(
  tag: string,
  options: CatalogOptions = {},
): Promise<{ store: Store; catalog: Catalog }> {
  const store = await openStore(tag);
  const catalog = await openCatalog(store, options);
  await store.flush();
  return { store, catalog };
}

/** Stands in for the lake writer: flush, then await the commit's durability. */
export async function settle(store: Store, durable: Promise<void>): Promise<void> {
  await store.flush();
  await durable;
}

/**
 * A durable lake of `tables` tables `t0`, `t1`, … of `columns`, as a read view of its head (head loaded):
 * what the read-cost tests measure against.
 */
export async function lakeWithTables(
  tag: string,
  tables: number,
  columns: { name: string; type: string }[],
): Promise<ReadView> {
  const { store, catalog } = await fresh(tag, { dataPath: "data/" });
  const out = await catalog.commit({
    verbs: Array.from({ length: tables }, (_, i) => ({ op: "create_table", name: `t${i}`, columns })),
  });
  await settle(store, out.durable);
  const view = store.snapshot();
  await head(view);
  return view;
}

/** What a durable commit answers: the minted snapshot and the verbs' assigned values. */
export interface Committed {
  snapshotId: number | null;
  assigned: Record<string, unknown>[];
}

/** A fresh lake, its name, and a commit through its catalog that answers once durable (as the writer's). */
export async function durableLake(tag: string): Promise<{
  lake: string;
  store: Store;
  catalog: Catalog;
  commit: (req: CommitRequest) => Promise<Committed>;
}> {
  const lake = lakeName(tag);
  const store = await openWriter(bucket(), lake);
  const catalog = await openCatalog(store, {});
  await store.flush();
  const commit = async (req: CommitRequest): Promise<Committed> => {
    const out = await catalog.commit(req);
    await settle(store, out.durable);
    return { snapshotId: out.snapshotId, assigned: out.assigned };
  };
  return { lake, store, catalog, commit };
}

/** `main.events (id int64, v varchar)`, the row-ingestion tests' table; keyed by `id` when `keyed`. */
export function createEvents(keyed = false): CommitRequest["verbs"] {
  return [
    {
      op: "create_table",
      schema: "main",
      name: "events",
      columns: [
        { name: "id", type: "int64" },
        { name: "v", type: "varchar" },
      ],
    },
    ...(keyed
      ? [{ op: "set_row_key" as const, table: { schema: "main", name: "events" }, columns: ["id"] }]
      : []),
  ];
}

export { StoreCounter as ReadCounter } from "../support/store-counter.ts";

/**
 * Wraps a store so, once armed, the next `times` transactions each see `interfere()` land (a real commit through
 * another catalog) between their begin and their first read — so their commit loses the head race.
 */
export function racing(
  store: Store,
  interfere: () => Promise<void>,
): { store: Store; arm(times: number): void } {
  let left = 0;
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "begin") {
        return (): Transaction => {
          const tx = target.begin();
          if (left <= 0) return tx;
          left--;
          let gate: Promise<void> | undefined = interfere();
          return new Proxy(tx, {
            get(t, p, r) {
              if (p === "get") {
                return async (key: Bytes) => {
                  if (gate) {
                    const g = gate;
                    gate = undefined;
                    await g;
                  }
                  return t.get(key);
                };
              }
              if (p === "commit") return (): CommitHandle => t.commit();
              const value = Reflect.get(t, p, r);
              return typeof value === "function" ? value.bind(t) : value;
            },
          });
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store: wrapped,
    arm(times: number) {
      left = times;
    },
  };
}

export const cols = [
  { name: "id", type: "int64" },
  { name: "amount", type: "decimal(18,2)" },
];

export const file = (path: string, recordCount: number, extra: Record<string, unknown> = {}) => ({
  path,
  recordCount,
  fileSizeBytes: recordCount * 10,
  ...extra,
});
