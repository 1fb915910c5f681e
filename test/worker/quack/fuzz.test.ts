/**
 * A structure-aware fuzzer of the Quack door (issue 24), seeded and bounded (test/support/property.ts
 * prints the seed and the replay command on failure). Seeds are valid messages of every type written by
 * the codec's own encoder, PREPARE_RESPONSE and FETCH_RESPONSE carrying chunks of every vector layout
 * (fixed, strings, STRUCT, LIST, MAP, ARRAY, nested, NULLs); each case mutates one in its counts and
 * lengths (any LEB128 varint rewritten to an edge value), its types (a logical type id or the header's
 * message type rewritten), its nesting (a byte run duplicated) and its bytes. Every case must:
 *  - decode to a message or fail with the codec's typed error, never anything else;
 *  - materialise no more values than its bytes allow (DECODED_VALUES_PER_BYTE per byte, at most
 *    MAX_DECODED_VALUES): the work, hence the heap, a body costs is bounded by its size;
 *  - be answered by the door (`handleQuack`, with and without a valid connection id) with an
 *    ERROR_RESPONSE or a valid answer, never an internal error.
 * Operation counts are measured, never time.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { SqlType, SqlValue } from "../../../catalog/sql/result.ts";
import { CodedError } from "../../../storage/errors.ts";
import { BinaryWriter, DECODED_VALUES_PER_BYTE, MAX_DECODED_VALUES } from "../../../worker/quack/binary.ts";
import { type DataChunk, toChunks } from "../../../worker/quack/chunk.ts";
import { handleQuack } from "../../../worker/quack/handler.ts";
import {
  decodeEnvelope,
  encodeEnvelope,
  type Message,
  MessageType,
  type MessageTypeId,
} from "../../../worker/quack/messages.ts";
import { ResultStore } from "../../../worker/quack/results.ts";
import { openSession } from "../../../worker/quack/session.ts";
import { call, TOKENS } from "../../support/http.ts";
import { assertProperty } from "../../support/property.ts";
import { emptyStructRows, invalidUtf8Varchar, listOfEmptyStructs } from "./hostile.ts";

/** Cases per run: a few thousand, well inside a minute. */
const CASES = 3000;

const COLUMNS: { type: SqlType; values: (i: number) => SqlValue }[] = [
  { type: { id: "INTEGER" }, values: (i) => (i % 5 === 0 ? null : i * 7) },
  { type: { id: "BOOLEAN" }, values: (i) => i % 2 === 0 },
  { type: { id: "BIGINT" }, values: (i) => BigInt(i) << 40n },
  { type: { id: "DOUBLE" }, values: (i) => i / 3 },
  { type: { id: "VARCHAR" }, values: (i) => (i % 4 === 0 ? null : `v${i}é`) },
  { type: { id: "BLOB" }, values: (i) => new Uint8Array([i, 0, 255]) },
  { type: { id: "DECIMAL", width: 18, scale: 3 }, values: (i) => BigInt(i * 1001) },
  { type: { id: "UUID" }, values: () => "0196a9c2-7d5e-7000-8000-00000000abcd" },
  { type: { id: "INTERVAL" }, values: (i) => ({ months: i, days: 2, micros: 3n }) },
  { type: { id: "LIST", child: { id: "INTEGER" } }, values: (i) => (i % 3 === 0 ? null : [i, i + 1]) },
  {
    type: {
      id: "STRUCT",
      fields: [
        { name: "a", type: { id: "INTEGER" } },
        { name: "b", type: { id: "LIST", child: { id: "VARCHAR" } } },
      ],
    },
    values: (i) => (i % 6 === 0 ? null : { a: i, b: [`x${i}`] }),
  },
  {
    type: { id: "MAP", key: { id: "VARCHAR" }, value: { id: "INTEGER" } },
    values: (i) => [{ key: "k", value: i }],
  },
  { type: { id: "ARRAY", child: { id: "SMALLINT" }, size: 3 }, values: (i) => [i, -i, 0] },
];

function chunksOf(rows: number, from: number, width: number): { types: SqlType[]; chunks: DataChunk[] } {
  const cols = COLUMNS.slice(from, from + width);
  const types = cols.map((c) => c.type);
  const data = Array.from({ length: rows }, (_, i) => cols.map((c) => c.values(i)));
  return { types, chunks: toChunks(types, data) };
}

/** Valid messages of every type (`withId`: the header carries a connection id that verifies). */
function seeds(id: string): { body: Uint8Array; label: string }[] {
  const out: { body: Uint8Array; label: string }[] = [];
  const add = (label: string, message: Message, connectionId: string): void => {
    out.push({
      label,
      body: encodeEnvelope({ header: { type: message.type, connectionId, clientQueryId: 7n }, message }),
    });
  };
  for (const cid of ["", id]) {
    add(
      "connect",
      {
        type: MessageType.CONNECTION_REQUEST,
        authString: `fuzz:${TOKENS.adminAll}`,
        clientVersion: "v1.5.5",
        clientPlatform: "linux_amd64",
        minVersion: 1,
        maxVersion: 1,
      },
      cid,
    );
    add(
      "connected",
      {
        type: MessageType.CONNECTION_RESPONSE,
        serverVersion: "v1.5.5",
        serverPlatform: "x",
        quackVersion: 1,
      },
      cid,
    );
    add(
      "prepare",
      { type: MessageType.PREPARE_REQUEST, sql: "SELECT 1; SELECT * FROM ducklake_snapshot" },
      cid,
    );
    add("fetch", { type: MessageType.FETCH_REQUEST, uuid: 12345678901234567890n }, cid);
    add("success", { type: MessageType.SUCCESS_RESPONSE }, cid);
    add("disconnect", { type: MessageType.DISCONNECT_MESSAGE }, cid);
    add("error", { type: MessageType.ERROR_RESPONSE, message: "boom" }, cid);
    for (let from = 0; from < COLUMNS.length; from += 4) {
      const { types, chunks } = chunksOf(from === 0 ? 70 : 9, from, 5);
      add(
        `prepared-${from}`,
        {
          type: MessageType.PREPARE_RESPONSE,
          types,
          names: types.map((_, i) => `c${i}`),
          needsMoreFetch: from % 8 === 0,
          results: chunks,
          resultUuid: -5n,
        },
        cid,
      );
      add(`fetched-${from}`, { type: MessageType.FETCH_RESPONSE, results: chunks, batchIndex: 2n }, cid);
    }
  }
  out.push({ label: "empty-struct", body: emptyStructRows(5) });
  out.push({ label: "list-empty-struct", body: listOfEmptyStructs(5) });
  out.push({ label: "bad-utf8", body: invalidUtf8Varchar(id) });
  return out;
}

const EDGE_VALUES = [
  0n,
  1n,
  2n,
  2047n,
  2048n,
  2049n,
  65535n,
  100_000n,
  1_000_000n,
  60_000_000n,
  2n ** 31n,
  2n ** 32n + 1n,
  2n ** 53n,
  2n ** 64n - 1n,
];

function leb(v: bigint): Uint8Array {
  const w = new BinaryWriter(16);
  w.uleb(v);
  return w.bytes();
}

/** The length of the LEB128 varint starting at `at` (at most 10 bytes). */
function varintLength(bytes: Uint8Array, at: number): number {
  let n = 0;
  while (at + n < bytes.length && n < 10) {
    const b = bytes[at + n] as number;
    n++;
    if ((b & 0x80) === 0) break;
  }
  return n;
}

function splice(bytes: Uint8Array, at: number, remove: number, insert: number[] | Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at));
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

/** Logical type ids (DuckDB's, plus ones this codec does not know). */
const TYPE_IDS = [1, 10, 13, 14, 21, 25, 26, 27, 34, 54, 100, 101, 102, 108, 0, 200, 255];
const MESSAGE_TYPES = [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 100, 127];

type Mutation =
  | { kind: "varint"; at: number; value: bigint }
  | { kind: "type"; at: number; id: number }
  | { kind: "header"; id: number }
  | { kind: "dup"; at: number; len: number }
  | { kind: "byte"; at: number; value: number }
  | { kind: "cut"; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("varint" as const),
      at: fc.nat(),
      value: fc.constantFrom(...EDGE_VALUES),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("type" as const),
      at: fc.nat(),
      id: fc.constantFrom(...TYPE_IDS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("header" as const), id: fc.constantFrom(...MESSAGE_TYPES) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("dup" as const),
      at: fc.nat(),
      len: fc.integer({ min: 1, max: 48 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("byte" as const),
      at: fc.nat(),
      value: fc.integer({ min: 0, max: 255 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }) },
);

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  if (bytes.length === 0) return bytes;
  const at = "at" in m ? m.at % bytes.length : 0;
  switch (m.kind) {
    case "varint":
      return splice(bytes, at, varintLength(bytes, at), leb(m.value));
    case "type": {
      // The next logical type's id: field 100 (0x64 0x00) followed by a varint, from `at` on.
      for (let i = at; i + 2 < bytes.length; i++) {
        if (bytes[i] === 0x64 && bytes[i + 1] === 0x00)
          return splice(bytes, i + 2, varintLength(bytes, i + 2), leb(BigInt(m.id)));
      }
      return bytes;
    }
    case "header":
      // The header starts with field 1 (0x01 0x00) and the message type's varint.
      if (bytes.length < 3) return bytes;
      return splice(bytes, 2, varintLength(bytes, 2), leb(BigInt(m.id)));
    case "dup":
      return splice(bytes, at, 0, bytes.slice(at, at + m.len));
    case "byte":
      return splice(bytes, at, 1, [m.value]);
    case "cut":
      return bytes.slice(0, at);
  }
}

/** Values a decoded message materialised: every row of every vector, recursively. */
function valuesIn(v: SqlValue): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + valuesIn(x as SqlValue), 0);
  if (v !== null && typeof v === "object" && !(v instanceof Uint8Array))
    return 1 + Object.values(v).reduce((n: number, x) => n + valuesIn(x as SqlValue), 0);
  return 1;
}

function materialised(m: Message): number {
  const chunks =
    m.type === MessageType.PREPARE_RESPONSE || m.type === MessageType.FETCH_RESPONSE ? m.results : [];
  return chunks.reduce(
    (n, c) => n + c.columns.reduce((k, col) => k + col.reduce((j: number, v) => j + valuesIn(v), 0), 0),
    0,
  );
}

const ANSWERS = new Set<MessageTypeId>([
  MessageType.ERROR_RESPONSE,
  MessageType.CONNECTION_RESPONSE,
  MessageType.PREPARE_RESPONSE,
  MessageType.FETCH_RESPONSE,
  MessageType.SUCCESS_RESPONSE,
]);

let id = "";

beforeAll(async () => {
  expect((await call("/v1/lakes/fuzz", { method: "PUT" })).status).toBe(201);
  id = (await openSession(env, `fuzz:${TOKENS.adminAll}`, Date.now())).connectionId;
});

describe("the Quack door under a structure-aware fuzzer", () => {
  it("answers every mutated message with an ERROR_RESPONSE or a valid answer, its work bounded by its bytes", async () => {
    const all = seeds(id);
    // Every seed is valid as written (the fuzzer starts from the codec's own output).
    for (const s of all.slice(0, -3)) expect(() => decodeEnvelope(s.body), s.label).not.toThrow();
    const results = new ResultStore();
    const outcomes = { decoded: 0, refused: 0, answered: 0 };
    await assertProperty(
      fc.asyncProperty(
        fc.nat(all.length - 1),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (pick, mutations) => {
          const seed = all[pick] as { body: Uint8Array; label: string };
          const body = mutations.reduce(mutate, seed.body);
          try {
            const { message } = decodeEnvelope(body);
            outcomes.decoded++;
            const bound = Math.min(MAX_DECODED_VALUES, DECODED_VALUES_PER_BYTE * body.length);
            expect(materialised(message), seed.label).toBeLessThanOrEqual(bound);
          } catch (err) {
            if (!(err instanceof CodedError)) throw err;
            expect(["QuackProtocolError", "QuackLimit"]).toContain(err.code);
            outcomes.refused++;
          }
          const out = await handleQuack({ env, body, requestId: "fuzz", now: Date.now(), results });
          expect(out.error, seed.label).not.toBe("Internal");
          const answer = decodeEnvelope(out.body).message;
          expect(ANSWERS.has(answer.type), `answer type ${answer.type}`).toBe(true);
          outcomes.answered++;
        },
      ),
      { numRuns: CASES },
    );
    // Not vacuous: both outcomes happen, and every case was answered.
    expect(outcomes.decoded).toBeGreaterThan(CASES / 20);
    expect(outcomes.refused).toBeGreaterThan(CASES / 20);
    expect(outcomes.answered).toBe(CASES);
  });
});
