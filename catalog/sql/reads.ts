/**
 * Read statements over the `ducklake_*` tables: which DuckLake template a statement is, and the one
 * function that answers it from a consistent cut. Templates are registered by family in
 * `reads-metadata.ts` (catalog, snapshots, schemas, tables, stats, options: everything but files and
 * inlined rows) and `reads-files.ts` (data and delete files, file column stats, inlined data and inlined
 * deletes). A statement matching no template is refused with its shape (never guessed).
 */
import type { ReadView } from "../../storage/api.ts";
import { Unsupported } from "../errors.ts";
import type { Statement } from "./lexer.ts";
import { shapeOf } from "./lexer.ts";
import { answerQuery } from "./query/index.ts";
import { FILE_READS } from "./reads-files.ts";
import { METADATA_READS } from "./reads-metadata.ts";
import type { SqlResult } from "./result.ts";

/** What a read is answered from. One context serves every statement of one request. */
export interface SqlReadContext {
  /**
   * A consistent cut of the lake's store (a stateless reader's, or the writer's own view), or null when
   * the lake does not exist yet: only an admin's ATTACH reaches that, and the catalog-load templates then
   * answer as an empty database so that DuckLake sends its initialization batch.
   */
  view: ReadView | null;
  /** Per-request memo so statements of one request share what they loaded (keyed by the loader). */
  memo: Map<string, unknown>;
  /**
   * Shared by every request that reads the same published cut (`cut-memo.ts`): metadata reads keep what
   * they decoded from the cut here (settled values only), so the dozen requests of one catalog load read
   * each kind once. Absent (tests, the writer's own view): `memo` alone.
   */
  cutMemo?: Map<string, unknown>;
  /**
   * Whether this server lists DuckLake's server-side `ducklake_commit` (the deployment's switch, decision
   * `docs/decisions/0262-server-commit-switch.md`). Absent: listed, as a stock server with `ducklake` loaded.
   */
  serverCommit?: boolean;
  /**
   * Inlined rows this connection's uncommitted flush removed in stock's eyes (inlined table name → rows
   * beginning at or before it are skipped): `writes/flush-marks.ts`, docs/decisions/0440-commit-space.md.
   */
  flushHidden?: () => Promise<ReadonlyMap<string, number>>;
  /**
   * The objects under the lake's own data prefix with R2's upload times, listed by the Worker for the orphan
   * listing (`files/orphan-listing.ts`, docs/decisions/0630-quack-orphan-listing-grace.md); null when the
   * lake's data path is external (decision 0502: DuckDB alone holds its files). Absent: that listing is
   * refused, since no one can tell which objects are uploads in flight.
   */
  dataObjects?: () => Promise<DataObjects | null>;
}

/** The objects of a lake's data prefix at one moment (`nowMs`, the lister's clock). */
export interface DataObjects {
  nowMs: number;
  /** Each object's path below the data prefix (relative to `data_path`) and R2's upload time. */
  objects: readonly { path: string; uploadedMs: number }[];
}

export interface ReadTemplate {
  /** Stable name, used in logs and tests (e.g. "snapshot.latest"). */
  name: string;
  /** True when the statement is this template (exact shape comparison, or a structural check). */
  matches(shape: string, stmt: Statement): boolean;
  answer(ctx: SqlReadContext, stmt: Statement): Promise<SqlResult>;
}

export const READ_TEMPLATES: readonly ReadTemplate[] = [...METADATA_READS, ...FILE_READS];

/** The template a read statement is, or undefined. */
export function findReadTemplate(stmt: Statement): ReadTemplate | undefined {
  const shape = shapeOf(stmt.tokens);
  return READ_TEMPLATES.find((t) => t.matches(shape, stmt));
}

/**
 * Answers one read statement: by its template when one matches (the measured fast paths), else by the
 * evaluator of DuckLake's SQL subset (`query/`, decision record 0420), which refuses what it does not
 * model with `Unsupported` naming the construct and the statement's shape.
 */
export async function answerRead(ctx: SqlReadContext, stmt: Statement): Promise<SqlResult> {
  const template = findReadTemplate(stmt);
  if (template) return template.answer(ctx, stmt);
  try {
    return await answerQuery(ctx, stmt);
  } catch (err) {
    if (err instanceof Unsupported) {
      throw new Unsupported(
        `statement not recognised as a DuckLake metadata read (${err.message.replace(/^unsupported: /, "")}): ${shapeOf(stmt.tokens).slice(0, 500)}`,
      );
    }
    throw err;
  }
}
