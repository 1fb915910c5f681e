/**
 * One Quack message in, one out: CONNECTION (auth + lake selection), PREPARE (reads answered at the edge
 * from a published cut, anything else forwarded to the lake writer as one atomic commit), FETCH (paged
 * results), DISCONNECT. Every failure is an ERROR_RESPONSE carrying the error's own text; a statement no
 * template recognises is logged with its shape (decision records 0200, 0202, 0203).
 */

import {
  AnswerCache,
  answerRead,
  type CutIdentity,
  CutMemos,
  flushMarksOf,
  routeMetadataSchema,
  type SqlReadContext,
  type SqlResult,
  type SqlValue,
  type SqlWriteAnswer,
  type SqlWriteRequest,
  type Statement,
  sha256Hex,
  shapeOf,
  splitStatements,
  statementKind,
} from "../../catalog/index.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import { CodedError } from "../../storage/errors.ts";
import { LakeNotFound } from "../../storage/index.ts";
import { scopeAtLeast } from "../auth.ts";
import { openCut } from "../cut.ts";
import type { Env } from "../env.ts";
import { metadataSchemaLake, schemaCatalogParts } from "../lake-name.ts";
import { callWriter } from "../lake-rpc.ts";
import { clientMessage } from "../lakes.ts";
import { log } from "../log.ts";
import { type RequestTimer, timed, timedSync } from "../request-timing.ts";
import { schemaCatalogMayBeCreated } from "../schema-catalogs.ts";
import { type DataChunk, toChunks } from "./chunk.ts";
import { listDataObjects } from "./data-objects.ts";
import { QuackForbidden, QuackLimit, QuackProtocolError } from "./errors.ts";
import {
  CLIENT_MESSAGE_TYPES,
  concat,
  encodeEnvelope,
  encodeHeader,
  encodeMessage,
  MAX_MESSAGE_BYTES,
  type Message,
  MessageType,
  openEnvelope,
  QUACK_VERSION,
} from "./messages.ts";
import { FETCH_CHUNKS, type Holder, MAX_RESULT_ROWS, type ResultStore } from "./results.ts";
import { openSession, type QuackSession, resumeSession } from "./session.ts";

/** What this server reports as its DuckDB version and platform (the version it is tested against). */
export const SERVER_DUCKDB_VERSION = "v1.5.5";
export const SERVER_PLATFORM = "cloudflare_workers";

export interface QuackRequest {
  env: Env;
  body: Uint8Array;
  requestId: string;
  now: number;
  results: ResultStore;
  /** Phase timing (worker/request-timing.ts), null when off: docs/decisions/0640-quack-request-timing.md. */
  timer?: RequestTimer | null;
}

/**
 * What metadata reads decoded from the latest published cuts, shared by this isolate's requests reading
 * the same cut (a catalog load's dozen requests read each kind once). Rebuildable: docs/decisions/0250.
 */
const cutMemos = new CutMemos();
/** Whole answers of read statements per published cut (docs/decisions/0641-warm-cut-answers.md). */
const answers = new AnswerCache();

function reply(message: Message, connectionId = ""): Uint8Array {
  return encodeEnvelope({ header: { type: message.type, connectionId, clientQueryId: null }, message });
}

function errorReply(message: string): Uint8Array {
  return reply({ type: MessageType.ERROR_RESPONSE, message });
}

/** The ERROR_RESPONSE for a body cut off at MAX_MESSAGE_BYTES. */
export function oversized(): Uint8Array {
  return errorReply(`message exceeds the limit of ${MAX_MESSAGE_BYTES} bytes`);
}

/** Answers one request body with one response body (never throws: errors become ERROR_RESPONSE). */
export async function handleQuack(
  req: QuackRequest,
): Promise<{ body: Uint8Array; lake: string | null; error?: string }> {
  let lake: string | null = null;
  try {
    // The header alone first: a type no client sends, or any message but CONNECTION without a connection
    // id that verifies, is answered before a byte of its body is decoded (decision 0400).
    const opened = openEnvelope(req.body);
    const { header } = opened;
    if (!CLIENT_MESSAGE_TYPES.has(header.type)) {
      return { body: errorReply("Unsupported message type for server"), lake, error: "QuackProtocolError" };
    }
    if (header.type === MessageType.CONNECTION_REQUEST) {
      const message = opened.message();
      if (message.type !== MessageType.CONNECTION_REQUEST) throw new QuackProtocolError("not a CONNECTION");
      if (message.minVersion > QUACK_VERSION) {
        return {
          body: errorReply("Unsupported Quack version - server only supports version 1 of quack"),
          lake,
        };
      }
      const timer = req.timer ?? null;
      const { connectionId, session } = await timed(timer, "auth", () =>
        openSession(req.env, message.authString, req.now),
      );
      lake = session.lake;
      await timed(timer, "cut", () => checkLakeOnConnect(req.env, session));
      const ok: Message = {
        type: MessageType.CONNECTION_RESPONSE,
        serverVersion: SERVER_DUCKDB_VERSION,
        serverPlatform: SERVER_PLATFORM,
        quackVersion: QUACK_VERSION,
      };
      return { body: reply(ok, connectionId), lake };
    }
    const session = await timed(req.timer ?? null, "auth", () =>
      resumeSession(req.env, header.connectionId, req.now),
    );
    lake = session.lake;
    const message = opened.message();
    switch (message.type) {
      case MessageType.PREPARE_REQUEST:
        return { body: await prepare(req, header.connectionId, session, message.sql), lake };
      case MessageType.FETCH_REQUEST:
        return { body: fetchPage(req, header.connectionId, message.uuid), lake };
      case MessageType.APPEND_REQUEST:
        await appendRows(req, header.connectionId, session, message);
        return { body: reply({ type: MessageType.SUCCESS_RESPONSE }), lake };
      case MessageType.DISCONNECT_MESSAGE:
        req.results.close(header.connectionId);
        return { body: reply({ type: MessageType.SUCCESS_RESPONSE }), lake };
      default:
        return { body: errorReply("Unsupported message type for server"), lake };
    }
  } catch (err) {
    if (err instanceof CodedError) {
      return { body: errorReply(clientMessage(err, lake ?? undefined)), lake, error: err.code };
    }
    log(
      "error",
      {
        msg: "quack: unhandled error",
        requestId: req.requestId,
        lake,
        error: String(err),
        stack: (err as Error).stack,
      },
      "error",
    );
    return {
      body: errorReply(`internal error; it has been logged with request id ${req.requestId}`),
      lake,
      error: "Internal",
    };
  }
}

/** No token for a missing lake passes CONNECTION, except an admin's (DuckLake then initialises it). */
async function checkLakeOnConnect(env: Env, session: QuackSession): Promise<void> {
  if (scopeAtLeast(session.grant, "admin")) return;
  try {
    await openCut(env, session.lake, {});
  } catch (err) {
    if (err instanceof LakeNotFound) throw lakeMissing(session.lake);
    throw err;
  }
}

function lakeMissing(lake: string): QuackForbidden {
  const parts = schemaCatalogParts(lake);
  if (parts !== null) {
    return new QuackForbidden(
      `metadata schema '${parts.schema}' of lake '${parts.lake}' does not exist: ATTACH the lake with METADATA_SCHEMA '${parts.schema}' and an admin token to initialise it`,
    );
  }
  return new QuackForbidden(
    `lake '${lake}' does not exist: create it with PUT /v1/lakes/${lake}, or ATTACH it with an admin token to initialise it`,
  );
}

async function prepare(
  req: QuackRequest,
  connectionId: string,
  session: QuackSession,
  sql: string,
): Promise<Uint8Array> {
  // Like stock, a new query closes the connection's open result.
  req.results.close(connectionId);
  const timer = req.timer ?? null;
  const { statements, reads, route } = timedSync(timer, "parse", () => {
    const split = splitStatements(sql);
    // A METADATA_SCHEMA other than the default names its own catalog (docs/decisions/0721-metadata-schemas.md).
    const routed = split.length === 0 ? null : routeMetadataSchema(split);
    const stmts = routed?.statements ?? split;
    return { statements: stmts, reads: stmts.every((s) => statementKind(s) === "read"), route: routed };
  });
  if (statements.length === 0) return errorReply("No statement to prepare");
  const connection = await connectionHash(connectionId);
  const target =
    route?.schema == null ? session : { ...session, lake: metadataSchemaLake(session.lake, route.schema) };
  const text = route?.rewritten ? statements.map((s) => s.text).join(";\n") : sql;
  const result = reads
    ? await answerReads(req, target, statements, connection)
    : await forwardWrite(
        req,
        target,
        text,
        statements,
        connection,
        route?.schema == null ? null : session.lake,
      );
  return timedSync(timer, "encode", () =>
    prepareResponse(req.results, { connectionId, owner: session.owner }, result, req.now),
  );
}

/** The deployment's `QUACK_SERVER_COMMIT` switch (docs/decisions/0262-server-commit-switch.md): off unless "enabled". */
function serverCommitEnabled(env: Env): boolean {
  return env.QUACK_SERVER_COMMIT === "enabled";
}

/**
 * The connection as the writer knows it: a SHA-256 of the connection id (the id itself is a credential),
 * naming its pending flushes (`catalog/sql/writes/flush-marks.ts`, docs/decisions/0440-commit-space.md).
 */
function connectionHash(connectionId: string): Promise<string> {
  return sha256Hex(`quack-connection\u0000${connectionId}`);
}

async function answerReads(
  req: QuackRequest,
  session: QuackSession,
  statements: Statement[],
  connection: string,
): Promise<SqlResult> {
  let ctx: SqlReadContext;
  let cut: CutIdentity | null = null;
  try {
    const opened = await timed(req.timer ?? null, "cut", () => openCut(req.env, session.lake, {}));
    let hidden: Promise<ReadonlyMap<string, number>> | undefined;
    cut = opened.cut;
    ctx = {
      view: opened.view,
      memo: new Map(),
      cutMemo: cutMemos.forCut(opened.cut, req.now),
      serverCommit: serverCommitEnabled(req.env),
      flushHidden: () => {
        hidden ??= flushMarksOf(opened.view, connection);
        return hidden;
      },
      dataObjects: () => listDataObjects(req.env, session.lake, opened.view, req.now),
    };
  } catch (err) {
    if (!(err instanceof LakeNotFound)) throw err;
    // Only an admin's session reaches a missing lake: the catalog load then sees an empty database.
    if (!scopeAtLeast(session.grant, "admin")) throw lakeMissing(session.lake);
    ctx = { view: null, memo: new Map(), serverCommit: serverCommitEnabled(req.env) };
  }
  const answer =
    cut === null
      ? (stmt: Statement) => answerRead(ctx, stmt)
      : answers.forRequest(ctx, cut, ctx.serverCommit ? "commit" : "no-commit");
  let last: SqlResult | null = null;
  for (const stmt of statements) {
    try {
      last = await timed(req.timer ?? null, "eval", () => answer(stmt, req.now));
    } catch (err) {
      logStatementError(req, session, stmt, err);
      throw err;
    }
  }
  return last as SqlResult;
}

/**
 * An INSERT into a `ducklake_*` table (APPEND_REQUEST, one chunk): the rows go to the writer as one commit,
 * which decides what they mean (docs/decisions/0710-metadata-appends.md); stock answers SUCCESS.
 */
async function appendRows(
  req: QuackRequest,
  connectionId: string,
  session: QuackSession,
  message: Extract<Message, { type: typeof MessageType.APPEND_REQUEST }>,
): Promise<void> {
  const { chunk } = message;
  const shape = `APPEND ${message.schema}.${message.table}`;
  if (!scopeAtLeast(session.grant, "write")) {
    throw new QuackForbidden(
      `the token has read scope on lake '${session.lake}': this request writes (${shape}) and was not run; use a token with write scope`,
    );
  }
  // Like a new query, an append closes the connection's open result.
  req.results.close(connectionId);
  const rows: SqlValue[][] = [];
  for (let r = 0; r < chunk.rows; r++) rows.push(chunk.columns.map((col) => col[r] as SqlValue));
  const request: SqlWriteRequest = {
    sql: "",
    // An admin's append may reserve a snapshot's changes row (the catalog's rule, decision 0710).
    mayCreateLake: scopeAtLeast(session.grant, "admin"),
    connection: await connectionHash(connectionId),
    append: { schema: message.schema, table: message.table, types: chunk.types, rows },
  };
  try {
    await timed(req.timer ?? null, "writer", () =>
      callWriter<SqlWriteAnswer>(req.env, session.lake, (stub) =>
        (stub as unknown as SqlWriterStub).sqlWrite(session.lake, request),
      ),
    );
  } catch (err) {
    log(
      "warn",
      {
        msg: "quack: append refused",
        requestId: req.requestId,
        lake: session.lake,
        shape,
        rows: chunk.rows,
        error: err instanceof CodedError ? err.code : String(err),
        detail: err instanceof Error ? err.message.slice(0, 500) : undefined,
      },
      req.env.LOG_LEVEL,
    );
    throw err;
  }
}

async function forwardWrite(
  req: QuackRequest,
  session: QuackSession,
  sql: string,
  statements: Statement[],
  connection: string,
  /** The lake whose metadata-schema catalog `session.lake` is, if it is one (decision 0721). */
  parentLake: string | null,
): Promise<SqlResult> {
  if (!scopeAtLeast(session.grant, "write")) {
    throw new QuackForbidden(
      `the token has read scope on lake '${session.lake}': this request writes (${firstWords(statements)}) and was not run; use a token with write scope`,
    );
  }
  try {
    const request: SqlWriteRequest = {
      sql,
      mayCreateLake:
        scopeAtLeast(session.grant, "admin") &&
        (parentLake === null || (await schemaCatalogMayBeCreated(req.env.BUCKET, parentLake))),
      connection,
    };
    const answer = await timed(req.timer ?? null, "writer", () =>
      callWriter<SqlWriteAnswer>(req.env, session.lake, (stub) =>
        (stub as unknown as SqlWriterStub).sqlWrite(session.lake, request),
      ),
    );
    return answer.result;
  } catch (err) {
    log(
      "warn",
      {
        msg: "quack: write refused",
        requestId: req.requestId,
        lake: session.lake,
        statements: statements.length,
        shapes: statements.slice(0, 5).map((s) => shapeOf(s.tokens).slice(0, 300)),
        error: err instanceof CodedError ? err.code : String(err),
        detail: err instanceof Error ? err.message.slice(0, 500) : undefined,
      },
      req.env.LOG_LEVEL,
    );
    throw err;
  }
}

/**
 * The writer's sqlWrite as the stub exposes it. Spelled out because the RPC stub's derived type of the
 * recursive SqlValue is too deep for the type checker; the method itself is LakeWriter.sqlWrite.
 */
interface SqlWriterStub {
  sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
}

function firstWords(statements: Statement[]): string {
  const first = statements.find((s) => statementKind(s) !== "read") ?? statements[0];
  return (first?.tokens ?? [])
    .slice(0, 3)
    .map((t) => t.text)
    .join(" ");
}

function logStatementError(req: QuackRequest, session: QuackSession, stmt: Statement, err: unknown): void {
  const code = err instanceof CodedError ? err.code : "Internal";
  // DuckLake's routine existence probes (MissingRelation) and optimistic commits losing a race are
  // expected answers, not failures: debug, so the access line is the one line such a request logs.
  const expected = code === "MissingRelation" || code === "CommitConflict";
  log(
    code === "Unsupported" ? "warn" : expected ? "debug" : "info",
    {
      msg: code === "Unsupported" ? "quack: statement not recognised" : "quack: statement failed",
      requestId: req.requestId,
      lake: session.lake,
      code,
      shape: shapeOf(stmt.tokens).slice(0, 2000),
    },
    req.env.LOG_LEVEL,
  );
}

function randomUuid(): bigint {
  const b = crypto.getRandomValues(new Uint8Array(16));
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return BigInt.asIntN(128, v);
}

/**
 * The PREPARE_RESPONSE for a statement's result: the first FETCH_CHUNKS chunks, the rest held as FETCH
 * pages for this connection.
 */
export function prepareResponse(
  results: ResultStore,
  holder: Holder,
  result: SqlResult,
  now: number,
): Uint8Array {
  if (result.columns.length === 0) return errorReply("Query did not return any columns");
  if (result.rows.length > MAX_RESULT_ROWS) {
    throw new QuackLimit(
      `the statement answers ${result.rows.length} rows, more than the ${MAX_RESULT_ROWS} this server returns; narrow the query`,
    );
  }
  const types = result.columns.map((c) => c.type);
  const chunks = toChunks(types, result.rows);
  const first = chunks.slice(0, FETCH_CHUNKS);
  const needsMoreFetch = first.length === FETCH_CHUNKS;
  const uuid = randomUuid();
  if (needsMoreFetch) {
    const pages: Uint8Array[] = [];
    for (let at = FETCH_CHUNKS; at < chunks.length; at += FETCH_CHUNKS) {
      pages.push(fetchBody(chunks.slice(at, at + FETCH_CHUNKS), BigInt(pages.length + 1)));
    }
    results.hold(holder, uuid, pages, now);
  }
  return reply({
    type: MessageType.PREPARE_RESPONSE,
    types,
    names: result.columns.map((c) => c.name),
    needsMoreFetch,
    results: first,
    resultUuid: uuid,
  });
}

function fetchBody(results: DataChunk[], batchIndex: bigint | null): Uint8Array {
  return encodeMessage({ type: MessageType.FETCH_RESPONSE, results, batchIndex });
}

function fetchPage(req: QuackRequest, connectionId: string, uuid: bigint): Uint8Array {
  const page = req.results.take(connectionId, uuid, req.now);
  const header = encodeHeader({ type: MessageType.FETCH_RESPONSE, connectionId: "", clientQueryId: null });
  if (page === "lost") {
    return errorReply(
      "Result has been closed: this server no longer holds the rest of the result (it was evicted, expired, or the server restarted); run the query again",
    );
  }
  if (page === "done") return concat(header, fetchBody([], null));
  return concat(header, page.body);
}
