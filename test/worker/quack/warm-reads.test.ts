/**
 * Warm isolates and fresh reads (docs/decisions/0761-read-staleness-contract.md): a timed wrapper shares the
 * store's isolate-wide memory (BUCKET_IDENTITY, storage/reader/store-identity.ts), another client's commit is
 * seen on the very next Quack read, and two lakes at the same positions each answer their own catalog. No
 * built cut is kept across requests (docs/decisions/0760-decoded-cut-cache.md): every open builds its own.
 */

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BUCKET_IDENTITY, type Bucket, openLatest } from "../../../storage/index.ts";
import { MessageType } from "../../../worker/quack/messages.ts";
import { RequestTimer, timedBucket } from "../../../worker/request-timing.ts";
import { call, TOKENS } from "../../support/http.ts";
import { connect, prepare } from "./client.ts";

const LATEST =
  'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot)';

const bucket = (): Bucket => env.BUCKET as unknown as Bucket;

async function createLake(lake: string): Promise<void> {
  expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
}

/** Another client's commit: the HTTP verb door, not the Quack connection that reads. */
async function createTable(lake: string, name: string): Promise<void> {
  const res = await call(`/v1/lakes/${lake}/commits`, {
    method: "POST",
    body: { verbs: [{ op: "create_table", name, columns: [{ name: "id", type: "int64" }] }] },
  });
  expect(res.status, await res.text()).toBe(200);
}

async function tableNames(lake: string): Promise<string[]> {
  const res = await call(`/v1/lakes/${lake}/catalog`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { catalog: { tables: { table_name: string }[] } };
  return body.catalog.tables.map((t) => t.table_name).sort();
}

describe("a warm isolate's reads", () => {
  it("a timed wrapper of the store answers the store's identity; each open builds its own cut", async () => {
    await createLake("dcut-reuse");
    await createTable("dcut-reuse", "t");
    const a = await openLatest(bucket(), "dcut-reuse");
    const timed = timedBucket(env.BUCKET, new RequestTimer()) as unknown as Bucket;
    expect((timed as unknown as Record<symbol, unknown>)[BUCKET_IDENTITY]).toBe(env.BUCKET);
    const b = await openLatest(timed, "dcut-reuse");
    expect(b.cut).toEqual(a.cut);
    // Remembered tail: the timed open replays nothing the untimed one replayed.
    expect(b.counters.mutationsReplayed).toBe(0);
    await createTable("dcut-reuse", "u");
    const c = await openLatest(bucket(), "dcut-reuse");
    expect(c.position).toBeGreaterThan(a.position);
  });

  it("a commit by another client is seen by the next Quack read through the warm isolate", async () => {
    await createLake("dcut-commit");
    const id = await connect(`dcut-commit:${TOKENS.adminAll}`);
    const latest = async (): Promise<bigint> => {
      const m = await prepare(id, LATEST);
      if (m.type !== MessageType.PREPARE_RESPONSE) throw new Error(JSON.stringify(m));
      return m.results[0]?.columns[0]?.[0] as bigint;
    };
    const before = await latest();
    expect(await latest()).toBe(before); // warm: the kept answer
    for (let i = 0; i < 4; i++) {
      await createTable("dcut-commit", `probe_${i}`);
      // Acknowledged above, so the very next read must see it: no window, the head is listed per request.
      expect(await latest()).toBe(before + BigInt(i + 1));
      expect(await latest()).toBe(before + BigInt(i + 1));
    }
    expect(await tableNames("dcut-commit")).toEqual(["probe_0", "probe_1", "probe_2", "probe_3"]);
  });

  it("two lakes at the same positions, epochs and manifest versions never share a cut", async () => {
    await createLake("dcut-twin-a");
    await createLake("dcut-twin-b");
    await createTable("dcut-twin-a", "only_a");
    await createTable("dcut-twin-b", "only_b");
    const a = await openLatest(bucket(), "dcut-twin-a");
    const b = await openLatest(bucket(), "dcut-twin-b");
    expect({ ...b.cut, lake: "" }).toEqual({ ...a.cut, lake: "" });
    // Warm, each lake still answers its own catalog.
    for (let i = 0; i < 2; i++) {
      expect(await tableNames("dcut-twin-a")).toEqual(["only_a"]);
      expect(await tableNames("dcut-twin-b")).toEqual(["only_b"]);
    }
  });
});
