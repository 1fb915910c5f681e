/**
 * DuckLake's `METADATA_SCHEMA` option over Quack: several DuckLake catalogs in one metadata database, each
 * in its own schema. DuckLake names the schema in every statement it sends (`"<schema>".ducklake_*`, the
 * existence probe's `table_schema = '<schema>'`, `ducklake_commit('<schema>', …)`) and opens a new one
 * with `CREATE SCHEMA IF NOT EXISTS "<schema>"` at the head of its initialization batch. Each schema is
 * an independent catalog (docs/decisions/0721-metadata-schemas.md): this module finds the one schema a
 * request names and rewrites the request to the default schema's spelling, so the catalog that serves
 * the schema reads it exactly as a lake's own. Which catalog that is, is the caller's (the Quack door).
 */

import { Unsupported } from "../errors.ts";
import { type Statement, shapeOf, type Token, tokenize } from "./lexer.ts";
import { METADATA_SCHEMA, TABLE_EXISTS_PROBE } from "./metadata/attach.ts";

/** Longest metadata schema name served: a schema's catalog is named after it beside its lake's name. */
export const MAX_METADATA_SCHEMA_CHARS = 63;
/** Schema names served: DuckDB's plain lower-case identifiers (no quoting, no case folding to decide). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

const TABLE_EXISTS_SHAPE = shapeOf(tokenize(TABLE_EXISTS_PROBE));
const CREATE_SCHEMA_SHAPE = ["CREATE", "SCHEMA", "IF", "NOT", "EXISTS"];

export interface SchemaRoute {
  /** The metadata schema the request names; null for the default schema (or none named). */
  schema: string | null;
  /** The statements as the default schema's catalog reads them (`CREATE SCHEMA` dropped). */
  statements: Statement[];
  /** True when `statements` differ from the request's (its SQL text must be rebuilt). */
  rewritten: boolean;
}

interface Mention {
  statement: number;
  token: Token;
  name: string;
}

function isIdent(t: Token | undefined): t is Token {
  return t !== undefined && (t.kind === "word" || t.kind === "quoted");
}

/** `CREATE SCHEMA IF NOT EXISTS <name>`: the schema it creates, else undefined. */
function createdSchema(stmt: Statement): Token | undefined {
  const t = stmt.tokens;
  if (t.length !== CREATE_SCHEMA_SHAPE.length + 1) return undefined;
  const ok = CREATE_SCHEMA_SHAPE.every((w, i) => t[i]?.kind === "word" && t[i]?.value.toUpperCase() === w);
  const name = t[CREATE_SCHEMA_SHAPE.length];
  return ok && isIdent(name) ? name : undefined;
}

/** Every place a statement names a metadata schema. */
function mentions(stmt: Statement, statement: number): Mention[] {
  const out: Mention[] = [];
  const t = stmt.tokens;
  const push = (token: Token): void => {
    out.push({ statement, token, name: token.kind === "word" ? token.value.toLowerCase() : token.value });
  };
  for (let i = 0; i < t.length; i++) {
    const a = t[i] as Token;
    const dot = t[i + 1];
    const b = t[i + 2];
    // `"<schema>".ducklake_<table>`: DuckLake qualifies every metadata table with its schema, always
    // quoted (`SQLIdentifierToString`); an unquoted qualifier is an alias, never a schema it sends.
    if (a.kind === "quoted" && dot?.kind === "op" && dot.text === "." && isIdent(b)) {
      if (b.value.toLowerCase().startsWith("ducklake_") && !a.value.toLowerCase().startsWith("ducklake_"))
        push(a);
    }
    // `ducklake_commit('<schema>', …)`: the server-side commit names the schema it commits to.
    if (a.kind === "word" && a.value.toLowerCase() === "ducklake_commit" && dot?.text === "(") {
      if (b?.kind === "string") push(b);
    }
  }
  // The existence probe names it as a literal: `… AND table_schema = '<schema>'`.
  if (shapeOf(t) === TABLE_EXISTS_SHAPE) {
    const lits = t.filter((x) => x.kind === "string");
    const schema = lits[1];
    if (schema !== undefined) push(schema);
  }
  return out;
}

function replaced(stmt: Statement, tokens: readonly Token[]): Statement {
  let text = stmt.text;
  for (const tok of [...tokens].sort((x, y) => y.at - x.at)) {
    const spelled = tok.kind === "string" ? `'${METADATA_SCHEMA}'` : `"${METADATA_SCHEMA}"`;
    text = text.slice(0, tok.at) + spelled + text.slice(tok.at + tok.text.length);
  }
  return { text, tokens: tokenize(text) };
}

/**
 * The metadata schema a request names and the request as the default schema's catalog reads it. A
 * request naming two schemas, or a schema whose name is not served, is refused by name.
 */
export function routeMetadataSchema(statements: readonly Statement[]): SchemaRoute {
  const found: Mention[] = [];
  const creates = new Set<number>();
  statements.forEach((s, i) => {
    const created = createdSchema(s);
    if (created !== undefined) {
      creates.add(i);
      found.push({
        statement: i,
        token: created,
        name: created.kind === "word" ? created.value.toLowerCase() : created.value,
      });
    } else found.push(...mentions(s, i));
  });
  const names = [...new Set(found.map((m) => m.name))];
  if (names.length > 1) {
    throw new Unsupported(
      `the request names metadata schemas ${names.map((n) => JSON.stringify(n)).join(" and ")}: one request reads or writes one DuckLake catalog`,
    );
  }
  const schema = names[0];
  if (schema !== undefined && schema !== METADATA_SCHEMA) {
    if (!SCHEMA_NAME.test(schema) || schema.length > MAX_METADATA_SCHEMA_CHARS) {
      throw new Unsupported(
        `metadata schema ${JSON.stringify(schema.slice(0, 80))} is not served: a METADATA_SCHEMA name is 1-${MAX_METADATA_SCHEMA_CHARS} lower-case letters, digits or '_', starting with a letter or '_'`,
      );
    }
  }
  if (creates.size > 0 && creates.size === statements.length) {
    throw new Unsupported(
      "CREATE SCHEMA alone: a metadata schema is created by the DuckLake initialization batch it heads",
    );
  }
  const isDefault = schema === undefined || schema === METADATA_SCHEMA;
  if (isDefault && creates.size === 0) return { schema: null, statements: [...statements], rewritten: false };
  const out: Statement[] = [];
  statements.forEach((s, i) => {
    if (creates.has(i)) return;
    const mine = isDefault ? [] : found.filter((m) => m.statement === i).map((m) => m.token);
    out.push(mine.length === 0 ? s : replaced(s, mine));
  });
  return { schema: isDefault ? null : (schema as string), statements: out, rewritten: true };
}
