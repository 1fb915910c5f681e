/**
 * Optional per-request phase timing (docs/decisions/0640-quack-request-timing.md): off unless
 * REQUEST_TIMING is "enabled"; on, a Quack answer carries `Server-Timing` split into exclusive phases, with
 * R2 waits under `store`. workerd's clock stands still between I/O, so the phases here run on a clock
 * that ticks once per reading (no timing assertions: only which phases appear and that they add up).
 */

import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { handleQuack } from "../../../worker/quack/handler.ts";
import { decodeEnvelope, encodeEnvelope, MessageType } from "../../../worker/quack/messages.ts";
import { ResultStore } from "../../../worker/quack/results.ts";
import { RequestTimer, TIMING_PHASES, timedBucket } from "../../../worker/request-timing.ts";
import { call, TOKENS } from "../../support/http.ts";
import { connect, connectRequest } from "./client.ts";

const SCHEMATA =
  "\nSELECT catalog_name, schema_name\nFROM information_schema.schemata\nWHERE catalog_name NOT IN ('system', 'temp')\nORDER BY ALL\n\t";

/** A clock that advances by one millisecond each time it is read. */
function ticking(): () => number {
  let t = 0;
  return () => t++;
}

beforeAll(async () => {
  const res = await call("/v1/lakes/timed", { method: "PUT" });
  expect([201, 409]).toContain(res.status);
});

describe("RequestTimer", () => {
  it("keeps phases exclusive: a nested phase and store waits are not counted twice", async () => {
    const timer = new RequestTimer(ticking());
    await timer.run("cut", async () => {
      timer.storeStart();
      timer.storeStart(); // overlapping calls: one wall interval
      timer.storeEnd();
      timer.storeEnd();
      timer.runSync("parse", () => undefined);
    });
    const p = timer.phases();
    // Readings: cut starts at 1, the store interval is 2..3, parse 4..5, cut ends at 6.
    expect(p).toEqual({ store: 1, parse: 1, cut: 3 });
    expect(timer.header()).toBe("parse;dur=1.000, cut;dur=3.000, store;dur=1.000, total;dur=7.000");
  });
});

describe("Server-Timing on /quack", () => {
  it("is absent by default", async () => {
    const body = encodeEnvelope({
      header: { type: MessageType.CONNECTION_REQUEST, connectionId: "", clientQueryId: 1n },
      message: connectRequest(`timed:${TOKENS.adminAll}`),
    });
    const res = await SELF.fetch("https://edge.test/quack", { method: "POST", body });
    expect(res.status).toBe(200);
    expect(res.headers.get("server-timing")).toBeNull();
    await res.arrayBuffer();
  });

  it("splits a read's time into auth, parse, cut, store, eval and encode when on", async () => {
    const id = await connect(`timed:${TOKENS.adminAll}`);
    const timer = new RequestTimer(ticking());
    const timedEnv = { ...env, REQUEST_TIMING: "enabled", BUCKET: timedBucket(env.BUCKET, timer) };
    const out = await handleQuack({
      env: timedEnv,
      body: encodeEnvelope({
        header: { type: MessageType.PREPARE_REQUEST, connectionId: id, clientQueryId: 2n },
        message: { type: MessageType.PREPARE_REQUEST, sql: SCHEMATA },
      }),
      requestId: "timing",
      now: Date.now(),
      results: new ResultStore(),
      timer,
    });
    expect(decodeEnvelope(out.body).message.type).toBe(MessageType.PREPARE_RESPONSE);
    const phases = timer.phases();
    for (const p of ["auth", "parse", "cut", "store", "eval", "encode"] as const) {
      expect(phases[p], p).toBeGreaterThan(0);
    }
    expect(phases.writer).toBeUndefined();
    const names = timer
      .header()
      .split(", ")
      .map((part) => part.split(";")[0]);
    expect(names.slice(0, -1).every((n) => (TIMING_PHASES as readonly string[]).includes(n ?? ""))).toBe(
      true,
    );
    expect(names.at(-1)).toBe("total");
  });
});
