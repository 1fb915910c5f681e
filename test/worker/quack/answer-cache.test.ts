/**
 * Warm-cut answers (docs/decisions/0641-warm-cut-answers.md): a read's whole answer is kept per published
 * cut, so a commit (a new cut) is seen by the very next read, and the cache stays within its bounds in
 * entries, bytes and per answer.
 */

import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AnswerCache,
  answerBytes,
  MAX_ANSWER_CACHE_BYTES,
  MAX_ANSWER_CACHE_ENTRIES,
  MAX_CACHED_ANSWER_BYTES,
} from "../../../catalog/sql/answer-cache.ts";
import { splitStatements } from "../../../catalog/sql/lexer.ts";
import type { SqlReadContext } from "../../../catalog/sql/reads.ts";
import { openLatest } from "../../../storage/index.ts";
import { MessageType } from "../../../worker/quack/messages.ts";
import { call, TOKENS } from "../../support/http.ts";
import { connect, prepare } from "./client.ts";

const LATEST =
  'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot)';
const SCHEMAS =
  'SELECT schema_id, schema_uuid::VARCHAR, schema_name, path, path_is_relative\nFROM "main".ducklake_schema\nWHERE 0 >= begin_snapshot AND (0 < end_snapshot OR end_snapshot IS NULL)';

function stmt(sql: string) {
  const s = splitStatements(sql)[0];
  if (s === undefined) throw new Error("no statement");
  return s;
}

beforeAll(async () => {
  expect((await call("/v1/lakes/answers", { method: "PUT" })).status).toBe(201);
});

describe("a commit is seen by the next read", () => {
  it("answers the latest snapshot again from the cache, then the new one after a commit", async () => {
    const id = await connect(`answers:${TOKENS.adminAll}`);
    const latest = async (): Promise<bigint> => {
      const m = await prepare(id, LATEST);
      if (m.type !== MessageType.PREPARE_RESPONSE) throw new Error(JSON.stringify(m.type));
      return m.results[0]?.columns[0]?.[0] as bigint;
    };
    const before = await latest();
    expect(await latest()).toBe(before); // the same cut: the kept answer
    for (let i = 0; i < 3; i++) {
      const res = await call("/v1/lakes/answers/commits", {
        method: "POST",
        body: {
          verbs: [{ op: "create_table", name: `probe_${i}`, columns: [{ name: "id", type: "int64" }] }],
        },
      });
      expect(res.status, await res.text()).toBe(200);
      expect(await latest()).toBe(before + BigInt(i + 1));
      expect(await latest()).toBe(before + BigInt(i + 1));
    }
  });
});

describe("bounds", () => {
  const context = async (): Promise<{
    ctx: SqlReadContext;
    cut: { lake: string; epoch: number; manifestVersion: number; position: number };
  }> => {
    const view = await openLatest(env.BUCKET, "answers");
    return { ctx: { view, memo: new Map(), serverCommit: true }, cut: view.cut };
  };

  it("keeps at most maxEntries answers, least recently used dropped first", async () => {
    const { ctx, cut } = await context();
    const cache = new AnswerCache(2);
    for (let p = 0; p < 5; p++) {
      await cache.forRequest({ ...ctx, memo: new Map() }, { ...cut, position: p }, "v")(stmt(LATEST), 0);
      expect(cache.size).toBeLessThanOrEqual(2);
    }
    expect(cache.size).toBe(2);
  });

  it("keeps at most maxBytes, and no answer above maxAnswerBytes", async () => {
    const { ctx, cut } = await context();
    const one = await new AnswerCache().forRequest(ctx, cut, "v")(stmt(SCHEMAS), 0);
    const size = answerBytes(one) + 2 * 400; // the key's text is counted too
    const cache = new AnswerCache(100, size * 2);
    for (let p = 0; p < 6; p++) {
      await cache.forRequest({ ...ctx, memo: new Map() }, { ...cut, position: p }, "v")(stmt(SCHEMAS), 0);
      expect(cache.bytes).toBeLessThanOrEqual(size * 2);
    }
    expect(cache.size).toBeGreaterThan(0);
    const tiny = new AnswerCache(100, MAX_ANSWER_CACHE_BYTES, 16);
    await tiny.forRequest(ctx, cut, "v")(stmt(SCHEMAS), 0);
    expect(tiny.size).toBe(0);
  });

  it("re-evaluates an entry past its lifetime, and keys by variant", async () => {
    const { ctx, cut } = await context();
    const cache = new AnswerCache(10, MAX_ANSWER_CACHE_BYTES, MAX_CACHED_ANSWER_BYTES, 1000);
    const a = await cache.forRequest(ctx, cut, "v")(stmt(LATEST), 0);
    expect(await cache.forRequest(ctx, cut, "v")(stmt(LATEST), 500)).toBe(a);
    expect(await cache.forRequest(ctx, cut, "v")(stmt(LATEST), 2000)).not.toBe(a);
    expect(await cache.forRequest(ctx, cut, "w")(stmt(LATEST), 2000)).not.toBe(a);
    expect(cache.size).toBe(2);
  });

  it("keeps nothing of a request once a statement read the connection's own pending flushes", async () => {
    const made = await call("/v1/lakes/answers-inlined", { method: "PUT" });
    expect(made.status).toBe(201);
    const res = await call("/v1/lakes/answers-inlined/commits", {
      method: "POST",
      body: { verbs: [{ op: "create_table", name: "inl", columns: [{ name: "id", type: "int64" }] }] },
    });
    expect(res.status, await res.text()).toBe(200);
    const view = await openLatest(env.BUCKET, "answers-inlined");
    // The first table (id 1) at schema version 1: its inlined rows are filtered by this connection's
    // flushes (catalog/sql/files/common.ts), so its answer is the connection's own.
    const inlined = stmt(
      'SELECT id AS col1\nFROM "main".ducklake_inlined_data_1_1 inlined_data\nWHERE 1 >= begin_snapshot AND (1 < end_snapshot OR end_snapshot IS NULL)\nORDER BY row_id',
    );
    let consulted = 0;
    const ctx: SqlReadContext = {
      view,
      memo: new Map(),
      serverCommit: true,
      flushHidden: async () => {
        consulted++;
        return new Map();
      },
    };
    const cache = new AnswerCache();
    const answer = cache.forRequest(ctx, view.cut, "v");
    await answer(inlined, 0);
    expect(consulted).toBeGreaterThan(0);
    await answer(stmt(LATEST), 0); // after it in the same request: not kept either
    expect(cache.size).toBe(0);
    // Without the connection's flushes in play, the same statements are kept.
    const plain = cache.forRequest({ view, memo: new Map(), serverCommit: true }, view.cut, "v");
    await plain(inlined, 0);
    await plain(stmt(LATEST), 0);
    expect(cache.size).toBe(2);
  });

  it("names its bounds", () => {
    expect(MAX_ANSWER_CACHE_ENTRIES).toBeGreaterThan(0);
    expect(MAX_CACHED_ANSWER_BYTES).toBeLessThan(MAX_ANSWER_CACHE_BYTES);
  });
});
