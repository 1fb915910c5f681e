/**
 * Issue 24's findings 6-9 over HTTP: a request that fails validation is a 4xx naming what is wrong,
 * never an outage that is retried (a body nested too deep for the writer's RPC), option values outside
 * DuckLake's ranges are refused with the option's name, and keys that fold to one column are refused
 * (docs/decisions/0403-validation-is-not-an-outage.md, 0404-option-ranges.md); finding 9's rule is
 * docs/decisions/0405-inlining-limit-and-statement-bound.md.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_INLINED_ROWS_PER_COMMIT } from "../../catalog/index.ts";
import { DEFAULT_DELETE_GRACE_MS } from "../../catalog/maintenance/settings.ts";
import { MAX_SQL_BYTES, MAX_STATEMENTS, splitStatements } from "../../catalog/sql/lexer.ts";
import type { TypeNode } from "../../catalog/types.ts";
import { parseValue } from "../../catalog/values/index.ts";
import type { Env } from "../../worker/env.ts";
import { ApiError } from "../../worker/errors.ts";
import { MAX_JSON_DEPTH } from "../../worker/json-depth.ts";
import { callWriter } from "../../worker/lake-rpc.ts";
import { call, expectError } from "../support/http.ts";
import { lakeWithTable, rowsPath } from "../support/rows-lake.ts";

function nested(depth: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe("finding 6: a body nested too deep is the client's error, not an outage", () => {
  it("answers 400 naming the depth, with or without an idempotency key, and writes nothing", async () => {
    const lake = "val-deep";
    await lakeWithTable(lake, false);
    const body = { ops: [{ op: "insert", row: { id: 1, v: nested(4000) } }] };
    for (const headers of [{}, { "idempotency-key": "deep-1" }] as Record<string, string>[]) {
      const res = await call(rowsPath(lake), { method: "POST", body, headers });
      expect(res.headers.get("retry-after")).toBeNull();
      const e = await expectError(res, 400, "InvalidRequest");
      expect(e.error.message).toMatch(
        new RegExp(`nests 400\\d levels deep, more than the ${MAX_JSON_DEPTH}`),
      );
    }
    const read = await call(rowsPath(lake));
    expect(((await read.json()) as { rows: unknown[] }).rows).toEqual([]);
  });

  it("an RPC argument the writer cannot be sent is InvalidRequest, never Unavailable (so never retried)", async () => {
    let thrown: unknown;
    try {
      await callWriter(env as unknown as Env, "val-rpc", (stub) =>
        stub.commit("val-rpc", [{ op: "create_schema", name: "s", deep: nested(100_000) }]),
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe("InvalidRequest");
    expect((thrown as ApiError).message).toMatch(/could not be sent to the writer/);
  });
});

describe("finding 7: option values have DuckLake's ranges", () => {
  const setOption = (lake: string, name: string, value: string): Promise<Response> =>
    call(`/v1/lakes/${lake}/commits`, {
      method: "POST",
      body: { verbs: [{ op: "set_option", name, value }] },
    });

  it("refuses a size, count or interval out of range with the option's name, and stores sizes exactly", async () => {
    const lake = "val-options";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    for (const [name, value] of [
      ["target_file_size", "99999999999999999999999TB"],
      ["parquet_row_group_size_bytes", "18446744073709551616"],
      ["data_inlining_row_limit", "99999999999999999999999"],
      ["parquet_row_group_size", "0"],
      ["expire_older_than", "99999999999 days"],
      ["delete_older_than", "9999999999999999 hours"],
    ] as const) {
      const e = await expectError(await setOption(lake, name, value), 400, "InvalidRequest");
      expect(e.error.message, `${name} = ${value}`).toMatch(new RegExp(`option ${name}: `));
    }
    expect((await setOption(lake, "target_file_size", "16000000TB")).status).toBe(200);
    expect((await setOption(lake, "parquet_row_group_size_bytes", "1.5KB")).status).toBe(200);
    const snapshot = await call(`/v1/lakes/${lake}/catalog`);
    const text = await snapshot.text();
    expect(text).toContain('"16000000000000000000"');
    expect(text).toContain('"1500"');
    expect(text).not.toMatch(/e\+/);
  });

  it("takes '' for the cleanup intervals, DuckLake's 'no default', which the lake's maintenance reads as unset", async () => {
    const lake = "val-options-empty";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    expect((await setOption(lake, "delete_older_than", "")).status).toBe(200);
    expect((await setOption(lake, "expire_older_than", "")).status).toBe(200);
    const m = (await (await call(`/v1/lakes/${lake}/maintenance`)).json()) as {
      settings: { deleteOlderThanMs: number; expireOlderThanMs: number | null };
    };
    expect(m.settings.deleteOlderThanMs).toBe(DEFAULT_DELETE_GRACE_MS);
    expect(m.settings.expireOlderThanMs).toBeNull();
  });
});

describe("finding 8: keys that fold to one column are refused with the column's name", () => {
  it("refuses {ID, id} in a row and in a key; nothing is written", async () => {
    const lake = "val-fold";
    await lakeWithTable(lake, false);
    const e = await expectError(
      await call(rowsPath(lake), {
        method: "POST",
        body: { ops: [{ op: "insert", row: { ID: 1, id: 2 } }] },
      }),
      400,
      "InvalidRequest",
    );
    expect(e.error.message).toMatch(/keys "ID" and "id" both name "id"/);
    const keyed = "val-fold-key";
    await lakeWithTable(keyed, true);
    const k = await expectError(
      await call(rowsPath(keyed), {
        method: "POST",
        body: { ops: [{ op: "delete", key: { Id: 1, iD: 2 } }] },
      }),
      400,
      "InvalidRequest",
    );
    expect(k.error.message).toMatch(/both name "id"/);
    const read = await call(rowsPath(lake));
    expect(((await read.json()) as { rows: unknown[] }).rows).toEqual([]);
  });
});

describe("finding 8 in nested values", () => {
  it("refuses a STRUCT value whose keys fold to one field, naming it", () => {
    const node: TypeNode = {
      name: "s",
      type: "struct",
      children: [{ name: "Kind", type: "varchar", children: [] }],
    };
    expect(parseValue(node, { kind: "a" }, "rows[0].s")).toEqual({ Kind: "a" });
    expect(() => parseValue(node, { kind: "a", KIND: "b" }, "rows[0].s")).toThrow(
      /rows\[0\]\.s: keys "kind" and "KIND" both name "Kind"/,
    );
  });
});

describe("finding 9: data_inlining_row_limit and the statement bound agree with the catalog's inline limit", () => {
  it("refuses a data_inlining_row_limit above what one commit may inline, saying why", async () => {
    const lake = "val-inlining";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    const set = (value: string): Promise<Response> =>
      call(`/v1/lakes/${lake}/commits`, {
        method: "POST",
        body: { verbs: [{ op: "set_option", name: "data_inlining_row_limit", value }] },
      });
    const e = await expectError(await set("100000"), 400, "InvalidRequest");
    expect(e.error.message).toMatch(
      new RegExp(
        `option data_inlining_row_limit: 100000 is above ${MAX_INLINED_ROWS_PER_COMMIT}, the most rows one commit may inline`,
      ),
    );
    expect((await set(String(MAX_INLINED_ROWS_PER_COMMIT))).status).toBe(200);
  });

  it("takes a request of as many statements as a commit within the catalog's limits sends (30,000 staged rows)", () => {
    const rows = Array.from(
      { length: 30_000 },
      (_, i) => `INSERT INTO ducklake_staged_inlined_row VALUES (1, ${i}, NULL, '(${i}, ''x${i}'')');`,
    );
    expect(splitStatements(rows.join("")).length).toBe(30_000);
    expect(MAX_STATEMENTS * 40).toBeLessThanOrEqual(MAX_SQL_BYTES);
  });
});
