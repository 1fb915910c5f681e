/**
 * The Quack v1 wire codec against golden bytes from stock DuckDB 1.5.5 (tools/quack-wire-capture.py):
 * every captured request and response decodes, re-encodes byte-identically, and the typed results decode
 * to the SqlValues stock returned.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SqlType, SqlValue } from "../../../catalog/sql/result.ts";
import { BinaryReader, BinaryWriter } from "../../../worker/quack/binary.ts";
import { toChunks } from "../../../worker/quack/chunk.ts";
import { QuackProtocolError } from "../../../worker/quack/errors.ts";
import { decodeEnvelope, encodeEnvelope, type Message, MessageType } from "../../../worker/quack/messages.ts";
import index from "../../fixtures/quack/wire/index.json";

const wire = JSON.parse(env.TEST_QUACK_WIRE ?? "{}") as Record<string, string>;
const bytesOf = (name: string): Uint8Array => Uint8Array.from(atob(wire[name] ?? ""), (c) => c.charCodeAt(0));
const name = (i: number, dir: "req" | "resp"): string => `${String(i).padStart(4, "0")}-${dir}.bin`;

/** The exchange (request/response pair) a step of the capture sent; `nth` when the step sent several. */
function exchange(step: string, nth = 0): { req: Message; resp: Message } {
  const ex = index.exchanges.filter((e) => e.step === step)[nth];
  if (!ex) throw new Error(`no exchange for ${step}`);
  return {
    req: decodeEnvelope(bytesOf(name(ex.i, "req"))).message,
    resp: decodeEnvelope(bytesOf(name(ex.i, "resp"))).message,
  };
}

/** The PREPARE_RESPONSE of a typed step: its types and first-chunk rows (row-major). */
function prepared(step: string): { types: SqlType[]; names: string[]; rows: SqlValue[][] } {
  const { resp } = exchange(`typed:${step}`, 1);
  if (resp.type !== MessageType.PREPARE_RESPONSE) throw new Error(`${step}: ${JSON.stringify(resp)}`);
  const chunk = resp.results[0];
  const rows: SqlValue[][] = [];
  for (let r = 0; r < (chunk?.rows ?? 0); r++)
    rows.push((chunk?.columns ?? []).map((col) => col[r] as SqlValue));
  return { types: resp.types, names: resp.names, rows };
}

describe("Quack wire codec: golden bytes from stock DuckDB 1.5.5", () => {
  it("has the capture", () => {
    expect(index.duckdb).toBe("1.5.5");
    expect(Object.keys(wire).length).toBe(index.exchanges.length * 2);
  });

  it("decodes every captured body and re-encodes it byte-identically", () => {
    for (const f of Object.keys(wire).sort()) {
      const original = bytesOf(f);
      const again = encodeEnvelope(decodeEnvelope(original));
      expect(Buffer.from(again).toString("hex"), f).toBe(Buffer.from(original).toString("hex"));
    }
  });

  it("decodes CONNECTION_REQUEST and RESPONSE as stock sends them", () => {
    const { req, resp } = exchange("typed:scalars", 0);
    expect(req).toEqual({
      type: MessageType.CONNECTION_REQUEST,
      authString: "probe-token",
      clientVersion: "v1.5.5",
      clientPlatform: "linux_amd64",
      minVersion: 1,
      maxVersion: 1,
    });
    expect(resp).toMatchObject({
      type: MessageType.CONNECTION_RESPONSE,
      serverVersion: "v1.5.5",
      quackVersion: 1,
    });
    const bad = exchange("auth:wrong-token");
    expect(bad.resp).toEqual({ type: MessageType.ERROR_RESPONSE, message: "Authentication failed" });
  });

  it("decodes every scalar type's values", () => {
    const s = prepared("scalars");
    expect(s.rows).toEqual([
      [
        true,
        -5,
        -300,
        70000,
        -9000000000n,
        200,
        60000,
        4000000000,
        18000000000000000000n,
        -170141183460469231731687303715884105727n,
        340282366920938463463374607431768211455n,
        1.5,
        -2.25,
      ],
    ]);
    const st = prepared("strings");
    expect(st.types.map((t) => t.id)).toEqual(["VARCHAR", "VARCHAR", "BLOB", "JSON", "UUID", "UUID", "UUID"]);
    expect(st.rows).toEqual([
      [
        "héllo",
        "",
        new Uint8Array([0, 255]),
        '{"a": 1}',
        "0190e6ae-8b5c-7d2a-9f3e-0123456789ab",
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
      ],
    ]);
    const t = prepared("times");
    expect(t.rows).toEqual([
      [
        19782,
        -1,
        49530123456n,
        { micros: 49530000000n, offsetSeconds: 7200 },
        1709214330123456n,
        1709214330n,
        1709214330123n,
        1709214330123456789n,
        1709214330500000n,
        { months: 12, days: 2, micros: 3000000n },
      ],
    ]);
    const d = prepared("decimals");
    expect(d.types).toEqual([
      { id: "DECIMAL", width: 4, scale: 2 },
      { id: "DECIMAL", width: 9, scale: 3 },
      { id: "DECIMAL", width: 18, scale: 6 },
      { id: "DECIMAL", width: 38, scale: 9 },
    ]);
    expect(d.rows).toEqual([[1234n, -12345678n, 123456789012345678n, -12345678901234567890123456789n]]);
  });

  it("decodes nested values and NULLs at every level", () => {
    const n = prepared("nested");
    expect(n.types[5]).toEqual({ id: "MAP", key: { id: "VARCHAR" }, value: { id: "INTEGER" } });
    expect(n.types[6]).toEqual({ id: "ARRAY", child: { id: "INTEGER" }, size: 3 });
    expect(n.rows).toEqual([
      [
        [1, null, 3],
        [],
        [[1], null, [2, 3]],
        { a: 1, b: "x" },
        [{ k: "v", n: null }],
        [
          { key: "x", value: 1 },
          { key: "y", value: null },
        ],
        [1, 2, 3],
        null,
      ],
    ]);
    expect(prepared("nulls").rows).toEqual([
      [1, "a", [1], { x: 1 }],
      [null, null, null, null],
      [3, null, [null], { x: null }],
    ]);
    const ns = prepared("null-scalars");
    expect(ns.rows[0]?.every((v) => v === null)).toBe(true);
  });

  it("pages a large result: 12 chunks of 2,048 rows, then FETCH", () => {
    const { resp } = exchange("typed:many", 1);
    expect(resp).toMatchObject({ type: MessageType.PREPARE_RESPONSE, needsMoreFetch: true });
    if (resp.type !== MessageType.PREPARE_RESPONSE) return;
    expect(resp.results.map((c) => c.rows)).toEqual(Array(12).fill(2048));
    const fetches = index.exchanges.filter((e) => e.step === "typed:many").slice(2, -1);
    const answers = fetches.map((e) => decodeEnvelope(bytesOf(name(e.i, "resp"))).message);
    const rows = answers.flatMap((m) =>
      m.type === MessageType.FETCH_RESPONSE ? m.results.map((c) => c.rows) : [],
    );
    expect(rows).toEqual([1]);
  });

  it("encodes SqlResults that decode back to the same values", () => {
    const types: SqlType[] = [
      { id: "BIGINT" },
      {
        id: "LIST",
        child: {
          id: "STRUCT",
          fields: [
            { name: "key", type: { id: "VARCHAR" } },
            { name: "v", type: { id: "DOUBLE" } },
          ],
        },
      },
      { id: "DECIMAL", width: 38, scale: 2 },
      { id: "TIMESTAMP WITH TIME ZONE" },
    ];
    const rows: SqlValue[][] = [];
    for (let i = 0; i < 5000; i++) {
      rows.push([
        BigInt(i),
        i % 3 === 0 ? null : [{ key: `k${i}`, v: i / 2 }],
        i % 5 === 0 ? null : BigInt(i) * 10n ** 30n,
        BigInt(i) * 1000000n,
      ]);
    }
    const chunks = toChunks(types, rows);
    expect(chunks.map((c) => c.rows)).toEqual([2048, 2048, 904]);
    const msg: Message = {
      type: MessageType.PREPARE_RESPONSE,
      types,
      names: ["a", "b", "c", "d"],
      needsMoreFetch: false,
      results: chunks,
      resultUuid: -5n,
    };
    const back = decodeEnvelope(
      encodeEnvelope({ header: { type: msg.type, connectionId: "c", clientQueryId: 3n }, message: msg }),
    );
    expect(back.message).toEqual(msg);
    expect(back.header).toEqual({ type: msg.type, connectionId: "c", clientQueryId: 3n });
  });

  it("LEB128 round-trips the edges", () => {
    const values = [0n, 1n, 63n, 64n, -1n, -64n, -65n, 127n, 128n, (1n << 63n) - 1n, -(1n << 63n)];
    const w = new BinaryWriter(4);
    for (const v of values) w.sleb(v);
    for (const v of values) if (v >= 0n) w.uleb(v);
    w.uleb(0xffff_ffff_ffff_ffffn);
    const r = new BinaryReader(w.bytes());
    expect(values.map(() => r.slebBig())).toEqual(values);
    expect(values.filter((v) => v >= 0n).map(() => r.ulebBig())).toEqual(values.filter((v) => v >= 0n));
    expect(r.ulebBig()).toBe(0xffff_ffff_ffff_ffffn);
  });

  it("refuses truncated and malformed bodies with a typed error", () => {
    const good = bytesOf(name(index.exchanges[1]?.i ?? 2, "req"));
    for (const cut of [0, 1, 5, good.length - 1]) {
      expect(() => decodeEnvelope(good.slice(0, cut))).toThrow(QuackProtocolError);
    }
    expect(() => decodeEnvelope(new Uint8Array([1, 0, 42, 3, 0, 0, 0xff, 0xff, 0xff, 0xff]))).toThrow(
      /unknown message type 42/,
    );
    const trailing = new Uint8Array([...good, 0]);
    expect(() => decodeEnvelope(trailing)).toThrow(/bytes after the message/);
  });

  it("refuses a value that does not fit its column type", () => {
    const msg: Message = {
      type: MessageType.PREPARE_RESPONSE,
      types: [{ id: "INTEGER" }],
      names: ["i"],
      needsMoreFetch: false,
      results: toChunks([{ id: "INTEGER" }], [["1"]]),
      resultUuid: 0n,
    };
    expect(() =>
      encodeEnvelope({ header: { type: msg.type, connectionId: "", clientQueryId: null }, message: msg }),
    ).toThrow(/not a INTEGER value/);
  });
});
