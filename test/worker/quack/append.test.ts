/**
 * APPEND_REQUEST (a client's INSERT into a `ducklake_*` table) decoded from the bytes stock DuckDB 1.5.5 sent
 * a stock Quack server (captured through the capture proxy, docs/decisions/0710-metadata-appends.md),
 * including a CONSTANT vector (field 90), and refused when malformed.
 */
import { describe, expect, it } from "vitest";
import { T } from "../../../catalog/sql/result.ts";
import { BinaryWriter } from "../../../worker/quack/binary.ts";
import { QuackProtocolError } from "../../../worker/quack/errors.ts";
import {
  CLIENT_MESSAGE_TYPES,
  decodeEnvelope,
  encodeEnvelope,
  encodeHeader,
  MessageType,
} from "../../../worker/quack/messages.ts";
import { oneColumnChunk } from "./hostile.ts";

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, "hex"));
const CONNECTION = "537E4D66F0DCCF526413B2489FB96DEE";

/** `INSERT INTO __ducklake_metadata_lake.ducklake_tag VALUES (1, 2, NULL, 'owner', 'alice')`, as stock sent it. */
const TAG_ROW =
  "0100090200203533374534443636463044434346353236343133423234383946423936444545030023ffff0100046d61696e02000c6475636b6c616b655f7461670300012c0164000165000564000effff64000effff64000effff640019ffff640019ffff6600056400006600080100000000000000ffff6400006600080200000000000000ffff640001650008feffffffffffffff6600080000000000000080ffff640000660001056f776e6572ffff64000066000105616c696365ffffffffffffffff";

/**
 * `INSERT INTO …ducklake_tag(object_id, key, value, begin_snapshot) VALUES (1, 'c1', 'x', 1)`: the client
 * fills `end_snapshot` with a constant NULL (field 90 = CONSTANT_VECTOR).
 */
const TAG_COLUMNS =
  "0100090200203533374534443636463044434346353236343133423234383946423936444545030033ffff0100046d61696e02000c6475636b6c616b655f7461670300012c0164000165000564000effff64000effff64000effff640019ffff640019ffff6600056400006600080100000000000000ffff6400006600080100000000000000ffff5a0002640001650008feffffffffffffff6600080000000000000080ffff640000660001026331ffff6400006600010178ffffffffffffffff";

/** A BIGINT column of `rows` rows written as one constant value (as stock writes an INSERT … SELECT's constant). */
function constantAppend(rows: number, value: bigint, vectorType = 2): Uint8Array {
  const w = new BinaryWriter();
  w.object(() => {
    w.fieldId(1);
    w.string("main");
    w.fieldId(2);
    w.string("ducklake_table_stats");
    w.fieldId(3);
    w.u8(1);
    oneColumnChunk(
      w,
      rows,
      () => {
        w.fieldId(90);
        w.uleb(vectorType);
        w.fieldId(100);
        w.bool(false);
        w.fieldId(102);
        const data = new Uint8Array(8);
        new DataView(data.buffer).setBigInt64(0, value, true);
        w.blob(data);
      },
      T.BIGINT,
    );
  });
  const header = encodeHeader({
    type: MessageType.APPEND_REQUEST,
    connectionId: CONNECTION,
    clientQueryId: 1n,
  });
  const body = w.bytes();
  const out = new Uint8Array(header.length + body.length);
  out.set(header);
  out.set(body, header.length);
  return out;
}

describe("APPEND_REQUEST", () => {
  it("is a message a client sends", () => {
    expect(CLIENT_MESSAGE_TYPES.has(MessageType.APPEND_REQUEST)).toBe(true);
  });

  it("decodes stock's bytes: schema, table and the row in the table's column types", () => {
    const { header, message } = decodeEnvelope(hex(TAG_ROW));
    expect(header).toEqual({
      type: MessageType.APPEND_REQUEST,
      connectionId: CONNECTION,
      clientQueryId: 35n,
    });
    expect(message).toEqual({
      type: MessageType.APPEND_REQUEST,
      schema: "main",
      table: "ducklake_tag",
      chunk: {
        types: [T.BIGINT, T.BIGINT, T.BIGINT, T.VARCHAR, T.VARCHAR],
        columns: [[1n], [2n], [null], ["owner"], ["alice"]],
        rows: 1,
      },
    });
    // Re-encoded (flat vectors, as this codec writes them) it decodes to the same message.
    expect(decodeEnvelope(encodeEnvelope({ header, message })).message).toEqual(message);
    expect(Buffer.from(encodeEnvelope({ header, message })).toString("hex")).toBe(TAG_ROW);
  });

  it("decodes a constant vector (field 90) as its value in every row", () => {
    const { message } = decodeEnvelope(hex(TAG_COLUMNS));
    if (message.type !== MessageType.APPEND_REQUEST) throw new Error("not an append");
    expect(message.chunk.columns).toEqual([[1n], [1n], [null], ["c1"], ["x"]]);
    const many = decodeEnvelope(constantAppend(64, 7n)).message;
    if (many.type !== MessageType.APPEND_REQUEST) throw new Error("not an append");
    expect(many.chunk.rows).toBe(64);
    expect(many.chunk.columns[0]?.length).toBe(64);
    expect(new Set(many.chunk.columns[0])).toEqual(new Set([7n]));
  });

  it("refuses vector types other than flat and constant, a missing chunk and a truncated body", () => {
    expect(() => decodeEnvelope(constantAppend(3, 1n, 3))).toThrow(QuackProtocolError);
    expect(() => decodeEnvelope(constantAppend(3, 1n, 3))).toThrow(/vector type 3/);
    const bytes = hex(TAG_ROW);
    expect(() => decodeEnvelope(bytes.subarray(0, bytes.length - 20))).toThrow(QuackProtocolError);
    const noChunk = new BinaryWriter();
    noChunk.object(() => {
      noChunk.fieldId(1);
      noChunk.string("main");
      noChunk.fieldId(3);
      noChunk.u8(0);
    });
    const header = encodeHeader({
      type: MessageType.APPEND_REQUEST,
      connectionId: CONNECTION,
      clientQueryId: null,
    });
    const body = new Uint8Array([...header, ...noChunk.bytes()]);
    expect(() => decodeEnvelope(body)).toThrow(/without its data chunk/);
  });

  it("charges a constant vector's rows to the decode budget like flat ones", () => {
    // 2,049 rows: more than one chunk may hold, refused before anything is allocated.
    expect(() => decodeEnvelope(constantAppend(2049, 1n))).toThrow(/a data chunk of 2049 rows/);
    // 2,048 rows of one constant in a 118-byte message: more values than its bytes back (decision 0400).
    expect(() => decodeEnvelope(constantAppend(2048, 1n))).toThrow(/more than a message of 118 bytes/);
  });
});
