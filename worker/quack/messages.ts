/**
 * Quack v1 messages (DuckDB 1.5.x `quack` extension): a body is two BinarySerializer objects, the header
 * (1 type, 2 connection id, 3 client query id) and the message. Field layouts and type ids follow the
 * extension's message definitions; fields equal to their default are omitted, as stock writes them
 * (decision record `docs/decisions/0201-quack-wire-codec.md`).
 */
import type { SqlType } from "../../catalog/index.ts";
import { BinaryReader, BinaryWriter } from "./binary.ts";
import { type DataChunk, readChunkWrapper, writeChunkWrapper } from "./chunk.ts";
import { QuackLimit, QuackProtocolError } from "./errors.ts";
import { readLogicalType, writeLogicalType } from "./logical-type.ts";

/** Largest request body accepted (DuckLake's largest commit batches are far smaller). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The only protocol version DuckDB 1.5.x speaks. */
export const QUACK_VERSION = 1;

export const MessageType = {
  CONNECTION_REQUEST: 1,
  CONNECTION_RESPONSE: 2,
  PREPARE_REQUEST: 3,
  PREPARE_RESPONSE: 4,
  FETCH_REQUEST: 7,
  FETCH_RESPONSE: 8,
  APPEND_REQUEST: 9,
  SUCCESS_RESPONSE: 10,
  DISCONNECT_MESSAGE: 11,
  ERROR_RESPONSE: 100,
} as const;
export type MessageTypeId = (typeof MessageType)[keyof typeof MessageType];

/** optional_idx's "no value" (DConstants::INVALID_INDEX), written as a plain varint. */
const INVALID_INDEX = 0xffff_ffff_ffff_ffffn;

export interface Header {
  type: MessageTypeId;
  connectionId: string;
  /** null when absent (INVALID_INDEX on the wire). */
  clientQueryId: bigint | null;
}

export type Message =
  | {
      type: typeof MessageType.CONNECTION_REQUEST;
      authString: string;
      clientVersion: string;
      clientPlatform: string;
      minVersion: number;
      maxVersion: number;
    }
  | {
      type: typeof MessageType.CONNECTION_RESPONSE;
      serverVersion: string;
      serverPlatform: string;
      quackVersion: number;
    }
  | { type: typeof MessageType.PREPARE_REQUEST; sql: string }
  | {
      type: typeof MessageType.PREPARE_RESPONSE;
      types: SqlType[];
      names: string[];
      needsMoreFetch: boolean;
      results: DataChunk[];
      resultUuid: bigint;
    }
  | { type: typeof MessageType.FETCH_REQUEST; uuid: bigint }
  | { type: typeof MessageType.FETCH_RESPONSE; results: DataChunk[]; batchIndex: bigint | null }
  /**
   * A client's INSERT into a table of the server's catalog (the quack extension's `AppendRequestMessage`):
   * 1 schema name, 2 table name, 3 the chunk of rows (a unique_ptr DataChunkWrapper, the table's column
   * types), one message per chunk of at most CHUNK_ROWS rows.
   */
  | { type: typeof MessageType.APPEND_REQUEST; schema: string; table: string; chunk: DataChunk }
  | { type: typeof MessageType.SUCCESS_RESPONSE }
  | { type: typeof MessageType.DISCONNECT_MESSAGE }
  | { type: typeof MessageType.ERROR_RESPONSE; message: string };

export interface Envelope {
  header: Header;
  message: Message;
}

function writeOptionalIdx(w: BinaryWriter, v: bigint | null): void {
  w.uleb(v ?? INVALID_INDEX);
}

function readOptionalIdx(r: BinaryReader): bigint | null {
  const v = r.ulebBig();
  return v === INVALID_INDEX ? null : v;
}

function stringField(w: BinaryWriter, id: number, v: string): void {
  if (v === "") return;
  w.fieldId(id);
  w.string(v);
}

function idxField(w: BinaryWriter, id: number, v: number): void {
  if (v === 0) return;
  w.fieldId(id);
  w.uleb(v);
}

function chunksField(w: BinaryWriter, id: number, chunks: readonly DataChunk[]): void {
  if (chunks.length === 0) return;
  w.fieldId(id);
  // Each element is a unique_ptr: a presence byte, then the wrapper object.
  w.list(chunks, (c) => {
    w.u8(1);
    w.object(() => writeChunkWrapper(w, c));
  });
}

export function encodeEnvelope(env: Envelope): Uint8Array {
  if (env.header.type !== env.message.type) {
    throw new QuackProtocolError(`header type ${env.header.type} for message ${env.message.type}`);
  }
  return concat(encodeHeader(env.header), encodeMessage(env.message));
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The header object alone (a held FETCH page is stored without it and gets a fresh one). */
export function encodeHeader(header: Header): Uint8Array {
  const w = new BinaryWriter(64);
  w.object(() => {
    w.fieldId(1);
    w.uleb(header.type);
    stringField(w, 2, header.connectionId);
    w.fieldId(3);
    writeOptionalIdx(w, header.clientQueryId);
  });
  return w.bytes();
}

/** The message object alone. */
export function encodeMessage(m: Message): Uint8Array {
  const w = new BinaryWriter();
  w.object(() => {
    switch (m.type) {
      case MessageType.CONNECTION_REQUEST:
        stringField(w, 1, m.authString);
        stringField(w, 2, m.clientVersion);
        stringField(w, 3, m.clientPlatform);
        idxField(w, 4, m.minVersion);
        idxField(w, 5, m.maxVersion);
        return;
      case MessageType.CONNECTION_RESPONSE:
        stringField(w, 1, m.serverVersion);
        stringField(w, 2, m.serverPlatform);
        idxField(w, 3, m.quackVersion);
        return;
      case MessageType.PREPARE_REQUEST:
        stringField(w, 1, m.sql);
        return;
      case MessageType.PREPARE_RESPONSE:
        if (m.types.length > 0) {
          w.fieldId(1);
          w.list(m.types, (t) => w.object(() => writeLogicalType(w, t)));
        }
        if (m.names.length > 0) {
          w.fieldId(2);
          w.list(m.names, (n) => w.string(n));
        }
        if (m.needsMoreFetch) {
          w.fieldId(3);
          w.bool(true);
        }
        chunksField(w, 4, m.results);
        w.fieldId(5);
        w.hugeint(m.resultUuid);
        return;
      case MessageType.FETCH_REQUEST:
        w.fieldId(1);
        w.hugeint(m.uuid);
        return;
      case MessageType.FETCH_RESPONSE:
        chunksField(w, 1, m.results);
        w.fieldId(2);
        writeOptionalIdx(w, m.batchIndex);
        return;
      case MessageType.ERROR_RESPONSE:
        stringField(w, 1, m.message);
        return;
      case MessageType.APPEND_REQUEST:
        stringField(w, 1, m.schema);
        stringField(w, 2, m.table);
        w.fieldId(3);
        w.u8(1);
        w.object(() => writeChunkWrapper(w, m.chunk));
        return;
      case MessageType.SUCCESS_RESPONSE:
      case MessageType.DISCONNECT_MESSAGE:
        return;
    }
  });
  return w.bytes();
}

function readString(r: BinaryReader, id: number): string {
  return r.field(id) ? r.string() : "";
}

function readIdx(r: BinaryReader, id: number): number {
  return r.field(id) ? r.uleb() : 0;
}

function readChunks(r: BinaryReader, id: number): DataChunk[] {
  if (!r.field(id)) return [];
  return r.list(() => {
    if (!r.bool()) throw new QuackProtocolError("a null data chunk in a result");
    const c = readChunkWrapper(r);
    r.end();
    return c;
  });
}

const KNOWN_TYPES = new Set<number>(Object.values(MessageType));

export function decodeHeader(r: BinaryReader): Header {
  r.requireField(1, "type");
  const type = r.uleb();
  if (!KNOWN_TYPES.has(type)) throw new QuackProtocolError(`unknown message type ${type}`);
  const connectionId = readString(r, 2);
  r.requireField(3, "client_query_id");
  const clientQueryId = readOptionalIdx(r);
  r.end();
  return { type: type as MessageTypeId, connectionId, clientQueryId };
}

/**
 * The messages a client sends. A server decodes nothing of any other type past its header: result
 * messages carry data chunks, the costliest thing on the wire (docs/decisions/0400-quack-door-limits.md).
 */
export const CLIENT_MESSAGE_TYPES: ReadonlySet<MessageTypeId> = new Set<MessageTypeId>([
  MessageType.CONNECTION_REQUEST,
  MessageType.PREPARE_REQUEST,
  MessageType.FETCH_REQUEST,
  MessageType.APPEND_REQUEST,
  MessageType.DISCONNECT_MESSAGE,
]);

/** A body whose header is read and whose message is not decoded yet. */
export interface OpenedEnvelope {
  header: Header;
  /** Decodes the message (after the caller decided the header earns it). */
  message(): Message;
}

/** Reads the header of a body; the message is decoded only when `message()` is called. */
export function openEnvelope(bytes: Uint8Array): OpenedEnvelope {
  if (bytes.length > MAX_MESSAGE_BYTES) {
    throw new QuackLimit(`message of ${bytes.length} bytes exceeds the limit of ${MAX_MESSAGE_BYTES}`);
  }
  const r = new BinaryReader(bytes);
  const header = decodeHeader(r);
  return {
    header,
    message: () => {
      const message = decodeBody(r, header.type);
      r.end();
      if (r.remaining !== 0) throw new QuackProtocolError(`${r.remaining} bytes after the message`);
      return message;
    },
  };
}

export function decodeEnvelope(bytes: Uint8Array): Envelope {
  const opened = openEnvelope(bytes);
  return { header: opened.header, message: opened.message() };
}

function decodeBody(r: BinaryReader, type: MessageTypeId): Message {
  switch (type) {
    case MessageType.CONNECTION_REQUEST:
      return {
        type,
        authString: readString(r, 1),
        clientVersion: readString(r, 2),
        clientPlatform: readString(r, 3),
        minVersion: readIdx(r, 4),
        maxVersion: readIdx(r, 5),
      };
    case MessageType.CONNECTION_RESPONSE:
      return {
        type,
        serverVersion: readString(r, 1),
        serverPlatform: readString(r, 2),
        quackVersion: readIdx(r, 3),
      };
    case MessageType.PREPARE_REQUEST:
      return { type, sql: readString(r, 1) };
    case MessageType.PREPARE_RESPONSE: {
      const types = r.field(1)
        ? r.list(() => {
            const t = readLogicalType(r);
            r.end();
            return t;
          })
        : [];
      const names = r.field(2) ? r.list(() => r.string()) : [];
      const needsMoreFetch = r.field(3) ? r.bool() : false;
      const results = readChunks(r, 4);
      r.requireField(5, "result_uuid");
      return { type, types, names, needsMoreFetch, results, resultUuid: r.hugeint() };
    }
    case MessageType.FETCH_REQUEST:
      r.requireField(1, "uuid");
      return { type, uuid: r.hugeint() };
    case MessageType.FETCH_RESPONSE: {
      const results = readChunks(r, 1);
      r.requireField(2, "batch_index");
      return { type, results, batchIndex: readOptionalIdx(r) };
    }
    case MessageType.ERROR_RESPONSE:
      return { type, message: readString(r, 1) };
    case MessageType.APPEND_REQUEST: {
      const schema = readString(r, 1);
      const table = readString(r, 2);
      r.requireField(3, "append_chunk");
      if (!r.bool()) throw new QuackProtocolError("an APPEND_REQUEST without its data chunk");
      const chunk = readChunkWrapper(r);
      r.end();
      return { type, schema, table, chunk };
    }
    case MessageType.SUCCESS_RESPONSE:
    case MessageType.DISCONNECT_MESSAGE:
      return { type };
  }
}
