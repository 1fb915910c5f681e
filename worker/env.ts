import type { WriterBindings } from "../durable-objects/bindings.ts";
import type { LakeWriter } from "../durable-objects/lake-writer.ts";

/**
 * Bindings and vars the Worker and the lake writer receive (wrangler.toml, .dev.vars, secrets): the
 * writer's own (`WriterBindings`, among them `BUCKET`) and the Worker's.
 */
export interface Env extends WriterBindings {
  /** The R2 bucket's name (wrangler.toml bucket_name), used in default DuckLake data paths. */
  BUCKET_NAME?: string;
  LAKE_WRITER: DurableObjectNamespace<LakeWriter>;
  /** "enabled" only in .dev.vars; anything else disables the dev token. */
  DEV_AUTH?: string;
  DEV_TOKEN?: string;
  /** Secret: JSON map of token -> { lakes: string[] | ["*"], scope: "read" | "write" | "admin" }. */
  AUTH_TOKENS?: string;
  /** Optional secret signing Quack connection ids (decision 0202); unset, a key derived from the tokens. */
  QUACK_SESSION_SECRET?: string;
  /**
   * "enabled": the Quack front door lists DuckLake's server-side `ducklake_commit`; anything else: it does
   * not, and DuckLake commits client-side (docs/decisions/0262-server-commit-switch.md).
   */
  QUACK_SERVER_COMMIT?: string;
  /**
   * "disabled": the writer's background pass runs no maintenance job (DuckLake's suite against `wrangler
   * dev`, whose data paths are local: docs/decisions/0411-suite-without-scheduled-maintenance.md); unset or
   * anything else: the jobs run as their lake options say (decision 0323).
   */
  SCHEDULED_MAINTENANCE?: string;
  /**
   * "enabled": each Quack response carries a `Server-Timing` header, its time split by phase (body, auth,
   * parse, cut, store, eval, encode, writer); anything else: off, at no cost
   * (docs/decisions/0640-quack-request-timing.md).
   */
  REQUEST_TIMING?: string;
  MAX_BODY_BYTES?: string;
  /** Largest data-file upload accepted, in bytes. */
  MAX_DATA_FILE_BYTES?: string;
  LOG_LEVEL?: string;
  /** Tests only: the text of wrangler.toml, injected by vitest.config.ts. */
  TEST_WRANGLER_TOML?: string;
  /** Tests only: package.json and tools/start.mjs (what `npm start` runs), injected by vitest.config.ts. */
  TEST_PACKAGE_JSON?: string;
  TEST_START_SCRIPT?: string;
  /** Tests only: the walkthrough's Parquet fixture (base64) and its stats JSON. */
  TEST_ORDERS_PARQUET_B64?: string;
  TEST_ORDERS_STATS?: string;
  /** Tests only: the committed client/openapi.json and client/schema.d.ts (the staleness check). */
  TEST_CLIENT_OPENAPI?: string;
  TEST_CLIENT_SCHEMA?: string;
  /** Tests only: golden Quack wire bodies (file name -> base64), test/fixtures/quack/wire/. */
  TEST_QUACK_WIRE?: string;
  /**
   * Tests only: the fast-check seed and path to replay (empty: a fresh seed), from the shell's FC_SEED and
   * FC_PATH through vitest.config.ts; read by test/support/property.ts.
   */
  FC_SEED?: string;
  FC_PATH?: string;
}

type WorkerEnv = Env;
declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}
