/**
 * Issue 24's findings 1-5, each as the case that broke the door: nothing a request costs before it is
 * authenticated, every count bounded by the bytes that back it, bodies cut while they stream, connection
 * ids unique per CONNECTION and held results that no other connection, token or lake can evict
 * (docs/decisions/0400-quack-door-limits.md, 0401, 0402).
 */

import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { SqlResult, SqlValue } from "../../../catalog/sql/result.ts";
import { CodedError } from "../../../storage/errors.ts";
import { handleQuack, prepareResponse } from "../../../worker/quack/handler.ts";
import {
  concat,
  decodeEnvelope,
  encodeEnvelope,
  encodeHeader,
  MAX_MESSAGE_BYTES,
  type Message,
  MessageType,
} from "../../../worker/quack/messages.ts";
import { MAX_HELD_RESULTS_PER_OWNER, ResultStore } from "../../../worker/quack/results.ts";
import { openSession, resumeSession } from "../../../worker/quack/session.ts";
import { call, TOKENS } from "../../support/http.ts";
import { connect, post } from "./client.ts";
import { emptyStructRows, invalidUtf8Varchar, listOfEmptyStructs } from "./hostile.ts";

function errorText(m: Message): string {
  if (m.type !== MessageType.ERROR_RESPONSE) throw new Error(`expected an error, got ${m.type}`);
  return m.message;
}

async function postRaw(body: Uint8Array): Promise<Message> {
  return post({ type: MessageType.SUCCESS_RESPONSE }, "", body);
}

function decodeFails(body: Uint8Array): string {
  try {
    decodeEnvelope(body);
  } catch (err) {
    if (!(err instanceof CodedError)) throw err;
    return `${err.code}: ${err.message}`;
  }
  return "decoded";
}

beforeAll(async () => {
  expect((await call("/v1/lakes/sales", { method: "PUT" })).status).toBe(201);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("finding 1: nothing is decoded past the header before the door has checked it", () => {
  it("refuses a server-only message type from its header, before or after authentication", async () => {
    // The 66-byte body that took the server down: it claims 60,000,000 rows of an empty STRUCT.
    const hostile = emptyStructRows(60_000_000, MessageType.PREPARE_RESPONSE);
    expect(hostile.length).toBeLessThan(80);
    expect(errorText(await postRaw(hostile))).toBe("Unsupported message type for server");
    expect(errorText(await postRaw(emptyStructRows(10_000_000)))).toBe("Unsupported message type for server");
    const id = await connect(`sales:${TOKENS.readSales}`);
    expect(errorText(await postRaw(emptyStructRows(10_000_000, MessageType.FETCH_RESPONSE, id)))).toBe(
      "Unsupported message type for server",
    );
  });

  it("verifies the connection id of every message but CONNECTION before decoding its body", async () => {
    const garbage = new Uint8Array([0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    for (const type of [
      MessageType.PREPARE_REQUEST,
      MessageType.FETCH_REQUEST,
      MessageType.DISCONNECT_MESSAGE,
    ]) {
      const body = concat(encodeHeader({ type, connectionId: "", clientQueryId: 1n }), garbage);
      expect(errorText(await postRaw(body))).toMatch(/^Invalid connection id/);
    }
  });

  it("bounds every count by the bytes that back it, before allocating (the codec alone)", () => {
    expect(decodeFails(emptyStructRows(3_000_000))).toMatch(
      /^QuackProtocolError: a data chunk of 3000000 rows/,
    );
    expect(decodeFails(emptyStructRows(2_048))).toMatch(
      /^QuackProtocolError: a STRUCT vector of 2048 rows claims/,
    );
    expect(decodeFails(listOfEmptyStructs(3_000_000))).toMatch(/^QuackProtocolError: .*3000000/);
    expect(decodeFails(listOfEmptyStructs(60_000_000))).toMatch(/^QuackProtocolError: .*60000000/);
  });
});

describe("finding 2: invalid UTF-8 in a VARCHAR vector", () => {
  it("is a malformed message, not an internal error with a stack trace in the log", async () => {
    expect(decodeFails(invalidUtf8Varchar())).toMatch(
      /^QuackProtocolError: row 0 of a VARCHAR vector is not valid UTF-8/,
    );
    const errors = vi.spyOn(console, "error");
    const id = (await openSession(env, `sales:${TOKENS.readSales}`, Date.now())).connectionId;
    for (const body of [invalidUtf8Varchar(), invalidUtf8Varchar(id)]) {
      const out = await handleQuack({
        env,
        body,
        requestId: "utf8",
        now: Date.now(),
        results: new ResultStore(),
      });
      expect(out.error).not.toBe("Internal");
      expect(errorText(decodeEnvelope(out.body).message)).not.toMatch(/internal error/);
    }
    expect(errors).not.toHaveBeenCalled();
  });
});

/** A body of `total` bytes streamed in 1 MiB chunks, counting what the server pulled. */
function countedStream(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = 1 << 20;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) {
        controller.close();
        return;
      }
      pulled += chunk;
      controller.enqueue(new Uint8Array(chunk));
    },
  });
  return { stream, pulled: () => pulled };
}

describe("finding 3: a body is cut at its limit while it streams", () => {
  const CUT_BEFORE = 32 * 1024 * 1024;
  const HUGE = 200 * 1024 * 1024;

  it("cuts a chunked 200 MiB /quack body before 32 MiB were read; health answers at once after", async () => {
    const { stream, pulled } = countedStream(HUGE);
    const res = await SELF.fetch("https://edge.test/quack", { method: "POST", body: stream });
    expect(res.status).toBe(200);
    expect(errorText(decodeEnvelope(new Uint8Array(await res.arrayBuffer())).message)).toMatch(
      new RegExp(`exceeds the limit of ${MAX_MESSAGE_BYTES}`),
    );
    expect(pulled()).toBeLessThan(CUT_BEFORE);
    expect((await call("/v1/health", { token: null })).status).toBe(200);
  });

  it("cuts a chunked 200 MiB body on a /v1 route the same way", async () => {
    const { stream, pulled } = countedStream(HUGE);
    const res = await SELF.fetch("https://edge.test/v1/lakes/sales/commits", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.adminAll}`, "content-type": "application/json" },
      body: stream,
    });
    expect(res.status).toBe(413);
    expect(pulled()).toBeLessThan(CUT_BEFORE);
  });
});

const BIG: SqlResult = {
  columns: [{ name: "i", type: { id: "BIGINT" } }],
  rows: Array.from({ length: 30_000 }, (_, i): SqlValue[] => [BigInt(i)]),
};

/** Every page of a held result, by FETCH through the handler: the row count, or the error's text. */
async function fetchAll(store: ResultStore, connectionId: string, uuid: bigint): Promise<number | string> {
  let rows = 0;
  for (let i = 0; i < 10; i++) {
    const body = encodeEnvelope({
      header: { type: MessageType.FETCH_REQUEST, connectionId, clientQueryId: 1n },
      message: { type: MessageType.FETCH_REQUEST, uuid },
    });
    const m = decodeEnvelope(
      (await handleQuack({ env, body, requestId: "f", now: Date.now(), results: store })).body,
    ).message;
    if (m.type !== MessageType.FETCH_RESPONSE) return errorText(m);
    if (m.results.length === 0) return rows;
    rows += m.results.reduce((n, c) => n + c.rows, 0);
  }
  return "too many pages";
}

function held(store: ResultStore, connectionId: string, owner: string): bigint {
  const m = decodeEnvelope(prepareResponse(store, { connectionId, owner }, BIG, Date.now())).message;
  if (m.type !== MessageType.PREPARE_RESPONSE || !m.needsMoreFetch) throw new Error("not a paged result");
  return m.resultUuid;
}

describe("finding 4: connection ids are unique per CONNECTION", () => {
  it("two CONNECTIONs with one token in the same millisecond get different ids, each verifying", async () => {
    const now = Date.now();
    const a = await openSession(env, `sales:${TOKENS.readSales}`, now);
    const b = await openSession(env, `sales:${TOKENS.readSales}`, now);
    expect(a.connectionId).not.toBe(b.connectionId);
    expect((await resumeSession(env, a.connectionId, now)).lake).toBe("sales");
    expect((await resumeSession(env, b.connectionId, now)).lake).toBe("sales");
  });

  it("one connection's FETCH and DISCONNECT never reach another's held result", async () => {
    const store = new ResultStore();
    const a = await connect(`sales:${TOKENS.readSales}`);
    const b = await connect(`sales:${TOKENS.readSales}`);
    expect(a).not.toBe(b);
    const session = await resumeSession(env, a, Date.now());
    const uuid = held(store, a, session.owner);
    expect(await fetchAll(store, b, uuid)).toMatch(/^Result has been closed/);
    const bye = encodeEnvelope({
      header: { type: MessageType.DISCONNECT_MESSAGE, connectionId: b, clientQueryId: 1n },
      message: { type: MessageType.DISCONNECT_MESSAGE },
    });
    await handleQuack({ env, body: bye, requestId: "d", now: Date.now(), results: store });
    expect(await fetchAll(store, a, uuid)).toBe(30_000 - 12 * 2048);
  });
});

describe("finding 5: held results are budgeted per lake and token", () => {
  it("a lake's held result survives another lake's 70 paged reads", async () => {
    const store = new ResultStore();
    const a = await connect(`sales:${TOKENS.readSales}`);
    const uuid = held(store, a, (await resumeSession(env, a, Date.now())).owner);
    const refused: string[] = [];
    for (let i = 0; i < 70; i++) {
      try {
        held(store, `other-${i}`, "other-lake.some-token");
      } catch (err) {
        refused.push((err as Error).message);
      }
    }
    expect(await fetchAll(store, a, uuid)).toBe(30_000 - 12 * 2048);
    expect(refused.length).toBe(6);
    expect(refused[0]).toMatch(new RegExp(`already holds ${MAX_HELD_RESULTS_PER_OWNER} paged results`));
  });
});
