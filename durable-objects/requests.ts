/** What the writer's public methods accept: each request checked once at the front, with a clear refusal. */
import {
  type CommitRequest,
  CommitRequestSchema,
  InvalidRequest,
  type SqlWriteRequest,
} from "../catalog/index.ts";

/** Largest per-lake flush spacing a caller may configure. */
export const MAX_FLUSH_SPACING_MS = 10_000;

export function parseRequest(raw: unknown): CommitRequest {
  const r = CommitRequestSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new InvalidRequest(
      `commit request rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return r.data;
}

export function parseGroup(requests: unknown): CommitRequest[] {
  if (!Array.isArray(requests) || requests.length === 0) {
    throw new InvalidRequest("a commit group needs a non-empty list of commit requests");
  }
  return requests.map(parseRequest);
}

export function parseSqlWrite(raw: unknown): SqlWriteRequest {
  const r = raw as Partial<SqlWriteRequest> | null;
  if (
    r === null ||
    typeof r !== "object" ||
    typeof r.sql !== "string" ||
    typeof r.mayCreateLake !== "boolean"
  ) {
    throw new InvalidRequest(
      "a SQL write needs { sql: string, mayCreateLake: boolean, idempotencyKey?: string }",
    );
  }
  if (r.idempotencyKey !== undefined && (typeof r.idempotencyKey !== "string" || r.idempotencyKey === "")) {
    throw new InvalidRequest("idempotencyKey must be a non-empty string");
  }
  if (r.connection !== undefined && (typeof r.connection !== "string" || r.connection === "")) {
    throw new InvalidRequest("connection must be a non-empty string");
  }
  const a = r.append;
  if (
    a !== undefined &&
    (a === null ||
      typeof a !== "object" ||
      typeof a.schema !== "string" ||
      typeof a.table !== "string" ||
      !Array.isArray(a.types) ||
      !Array.isArray(a.rows) ||
      !a.rows.every(Array.isArray))
  ) {
    throw new InvalidRequest("append must be { schema: string, table: string, types: [], rows: [][] }");
  }
  return {
    ...(a !== undefined ? { append: a } : {}),
    sql: r.sql,
    mayCreateLake: r.mayCreateLake,
    ...(r.idempotencyKey !== undefined ? { idempotencyKey: r.idempotencyKey } : {}),
    ...(r.connection !== undefined ? { connection: r.connection } : {}),
  };
}

export function checkSpacing(ms: number): void {
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_FLUSH_SPACING_MS) {
    throw new InvalidRequest(`flushSpacingMs must be between 0 and ${MAX_FLUSH_SPACING_MS}, got ${ms}`);
  }
}

export function checkLifetime(lifetime: number | undefined): void {
  if (lifetime !== undefined && (!Number.isFinite(lifetime) || lifetime <= 0)) {
    throw new InvalidRequest(`lifetimeMs must be a positive number of milliseconds, got ${lifetime}`);
  }
}
