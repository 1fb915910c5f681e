/**
 * A recursive-descent parser of the SQL subset DuckLake's metadata manager generates (the enumeration
 * and the grammar: `docs/decisions/0420-metadata-query-evaluator.md`). Input is the lexer's tokens; any
 * construct outside the subset throws `Unsupported` naming it, so the evaluator never runs a statement
 * it only half understood.
 */
import { Unsupported } from "../../errors.ts";
import { sqlTypeOf } from "../files/inlined-values.ts";
import type { Token } from "../lexer.ts";
import type { SqlType } from "../result.ts";
import type { BinaryOp, Cte, Expr, FromItem, OrderItem, Query, Select, SelectItem, SetExpr } from "./ast.ts";

/** Deepest nesting of expressions and subqueries accepted (DuckLake's deepest is under 20). */
export const MAX_QUERY_DEPTH = 200;

/** Words that end an expression or a FROM item rather than name an alias. */
const RESERVED = new Set([
  "SELECT",
  "FROM",
  "WHERE",
  "GROUP",
  "HAVING",
  "ORDER",
  "LIMIT",
  "OFFSET",
  "UNION",
  "JOIN",
  "LEFT",
  "INNER",
  "CROSS",
  "ON",
  "USING",
  "AND",
  "OR",
  "NOT",
  "AS",
  "WITH",
  "IS",
  "IN",
  "BETWEEN",
  "LIKE",
  "CASE",
  "WHEN",
  "THEN",
  "ELSE",
  "END",
  "ASC",
  "DESC",
  "NULLS",
  "BY",
  "DISTINCT",
  "ALL",
  "LATERAL",
  "EXCEPT",
  "INTERSECT",
  "WINDOW",
  "QUALIFY",
  "RIGHT",
  "FULL",
  "OUTER",
  "NATURAL",
  "FILTER",
  "OVER",
  "VALUES",
  "ILIKE",
  "GLOB",
]);

const TYPE_ALIASES: Record<string, string> = {
  INT: "INTEGER",
  INT4: "INTEGER",
  INT8: "BIGINT",
  LONG: "BIGINT",
  TEXT: "VARCHAR",
  STRING: "VARCHAR",
  BOOL: "BOOLEAN",
  TIMESTAMPTZ: "TIMESTAMP WITH TIME ZONE",
  FLOAT8: "DOUBLE",
  FLOAT4: "FLOAT",
  REAL: "FLOAT",
  INT2: "SMALLINT",
  INT1: "TINYINT",
};

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly t: readonly Token[]) {}

  private peek(off = 0): Token | undefined {
    return this.t[this.i + off];
  }
  private isWord(w: string, off = 0): boolean {
    const tok = this.peek(off);
    return tok?.kind === "word" && tok.value.toUpperCase() === w;
  }
  private isOp(op: string, off = 0): boolean {
    const tok = this.peek(off);
    return tok?.kind === "op" && tok.text === op;
  }
  private eatWord(w: string): boolean {
    if (!this.isWord(w)) return false;
    this.i++;
    return true;
  }
  private eatOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.i++;
    return true;
  }
  private expectWord(w: string): void {
    if (!this.eatWord(w)) throw this.refuse(`expected ${w}`);
  }
  private expectOp(op: string): void {
    if (!this.eatOp(op)) throw this.refuse(`expected "${op}"`);
  }
  refuse(what: string): Unsupported {
    const near = this.t
      .slice(this.i, this.i + 6)
      .map((x) => x.text)
      .join(" ");
    return new Unsupported(`metadata query: ${what} near "${near.slice(0, 80)}"`);
  }
  private enter(): void {
    if (++this.depth > MAX_QUERY_DEPTH) {
      throw new Unsupported(`metadata query nests deeper than ${MAX_QUERY_DEPTH} levels`);
    }
  }
  private leave(): void {
    this.depth--;
  }
  atEnd(): boolean {
    return this.i >= this.t.length;
  }

  /** An identifier (plain word not reserved, or quoted). */
  private ident(what: string): string {
    const tok = this.peek();
    if (tok?.kind === "quoted") {
      this.i++;
      return tok.value;
    }
    if (tok?.kind === "word" && !RESERVED.has(tok.value.toUpperCase())) {
      this.i++;
      return tok.value;
    }
    throw this.refuse(`expected ${what}`);
  }
  private identOpt(): string | undefined {
    const tok = this.peek();
    if (tok?.kind === "quoted") {
      this.i++;
      return tok.value;
    }
    if (tok?.kind === "word" && !RESERVED.has(tok.value.toUpperCase())) {
      this.i++;
      return tok.value;
    }
    return undefined;
  }

  query(): Query {
    this.enter();
    const ctes: Cte[] = [];
    if (this.eatWord("WITH")) {
      if (this.isWord("RECURSIVE")) throw this.refuse("WITH RECURSIVE");
      do {
        const name = this.ident("a CTE name");
        let columns: string[] | undefined;
        if (this.eatOp("(")) {
          columns = [];
          do columns.push(this.ident("a column name"));
          while (this.eatOp(","));
          this.expectOp(")");
        }
        this.expectWord("AS");
        if (this.eatWord("NOT")) this.expectWord("MATERIALIZED");
        else this.eatWord("MATERIALIZED");
        this.expectOp("(");
        const q = this.query();
        this.expectOp(")");
        ctes.push({ name, columns, query: q });
      } while (this.eatOp(","));
    }
    let body = this.setTerm();
    while (this.isWord("UNION") || this.isWord("EXCEPT") || this.isWord("INTERSECT")) {
      if (!this.eatWord("UNION")) throw this.refuse("EXCEPT/INTERSECT");
      const all = this.eatWord("ALL");
      if (!all && this.isWord("BY")) throw this.refuse("UNION BY NAME");
      body = { k: "union", all, l: body, r: this.setTerm() };
    }
    const orderBy = this.eatWord("ORDER") ? this.byList() : [];
    let limit: Expr | undefined;
    let offset: Expr | undefined;
    for (;;) {
      if (!limit && this.eatWord("LIMIT")) limit = this.expr();
      else if (!offset && this.eatWord("OFFSET")) offset = this.expr();
      else break;
    }
    this.leave();
    return { with: ctes, body, orderBy, limit, offset };
  }

  private setTerm(): SetExpr {
    if (this.isOp("(")) {
      // A parenthesised query as a set operand is outside what DuckLake sends.
      throw this.refuse("a parenthesised set operand");
    }
    if (this.eatWord("VALUES")) {
      const rows: Expr[][] = [];
      do {
        this.expectOp("(");
        const row: Expr[] = [];
        do row.push(this.expr());
        while (this.eatOp(","));
        this.expectOp(")");
        rows.push(row);
      } while (this.eatOp(","));
      return { k: "values", rows };
    }
    return this.select();
  }

  private select(): Select {
    const fromFirst = this.isWord("FROM");
    if (fromFirst) throw this.refuse("FROM-first syntax");
    this.expectWord("SELECT");
    let distinct = false;
    let distinctOn: Expr[] | undefined;
    if (this.eatWord("DISTINCT")) {
      distinct = true;
      if (this.eatWord("ON")) {
        this.expectOp("(");
        distinctOn = [];
        do distinctOn.push(this.expr());
        while (this.eatOp(","));
        this.expectOp(")");
      }
    } else this.eatWord("ALL");
    const items: SelectItem[] = [];
    do items.push(this.selectItem());
    while (this.eatOp(","));
    const sel: Select = { k: "select", distinct, distinctOn, items, groupBy: [] };
    if (this.eatWord("FROM")) sel.from = this.fromList();
    if (this.eatWord("WHERE")) sel.where = this.expr();
    if (this.eatWord("GROUP")) {
      this.expectWord("BY");
      if (this.isWord("ALL")) throw this.refuse("GROUP BY ALL");
      do sel.groupBy.push(this.expr());
      while (this.eatOp(","));
    }
    if (this.eatWord("HAVING")) sel.having = this.expr();
    if (this.isWord("WINDOW") || this.isWord("QUALIFY")) throw this.refuse("WINDOW/QUALIFY clauses");
    return sel;
  }

  private selectItem(): SelectItem {
    const expr = this.expr();
    if (expr.k === "star" && (this.isWord("EXCLUDE") || this.isWord("REPLACE") || this.isWord("RENAME"))) {
      throw this.refuse("star modifiers");
    }
    if (this.eatWord("AS")) return { expr, alias: this.ident("an alias") };
    const alias = this.identOpt();
    return alias === undefined ? { expr } : { expr, alias };
  }

  private fromList(): FromItem {
    let left = this.joined();
    while (this.eatOp(",")) {
      left = { k: "join", type: "cross", l: left, r: this.joined() };
    }
    return left;
  }

  private joined(): FromItem {
    let left = this.fromPrimary();
    for (;;) {
      let type: "inner" | "left" | "cross";
      if (this.eatWord("JOIN")) type = "inner";
      else if (this.isWord("INNER") && this.isWord("JOIN", 1)) {
        this.i += 2;
        type = "inner";
      } else if (this.isWord("LEFT")) {
        this.i++;
        this.eatWord("OUTER");
        this.expectWord("JOIN");
        type = "left";
      } else if (this.isWord("CROSS") && this.isWord("JOIN", 1)) {
        this.i += 2;
        type = "cross";
      } else if (
        this.isWord("RIGHT") ||
        this.isWord("FULL") ||
        this.isWord("NATURAL") ||
        this.isWord("ASOF")
      ) {
        throw this.refuse("RIGHT/FULL/NATURAL/ASOF joins");
      } else return left;
      const right = this.fromPrimary();
      if (type === "cross") {
        left = { k: "join", type, l: left, r: right };
      } else if (this.eatWord("ON")) {
        left = { k: "join", type, l: left, r: right, on: this.expr() };
      } else if (this.eatWord("USING")) {
        this.expectOp("(");
        const using: string[] = [];
        do using.push(this.ident("a USING column"));
        while (this.eatOp(","));
        this.expectOp(")");
        left = { k: "join", type, l: left, r: right, using };
      } else if (right.k === "sub" && right.lateral) {
        left = { k: "join", type, l: left, r: right };
      } else throw this.refuse("a join without ON or USING");
    }
  }

  private fromPrimary(): FromItem {
    const lateral = this.eatWord("LATERAL");
    if (this.eatOp("(")) {
      if (!this.isWord("SELECT") && !this.isWord("WITH") && !this.isWord("VALUES")) {
        throw this.refuse("a parenthesised join");
      }
      const query = this.query();
      this.expectOp(")");
      this.eatWord("AS");
      const alias = this.identOpt();
      let columns: string[] | undefined;
      if (alias !== undefined && this.eatOp("(")) {
        columns = [];
        do columns.push(this.ident("a column alias"));
        while (this.eatOp(","));
        this.expectOp(")");
      }
      return { k: "sub", query, alias, columns, lateral };
    }
    if (lateral) throw this.refuse("LATERAL of a table");
    let name = this.ident("a table name");
    if (this.eatOp(".")) {
      if (name.toLowerCase() !== "main") throw this.refuse(`the schema ${name}`);
      name = this.ident("a table name");
    }
    if (this.eatOp(".")) throw this.refuse("a three-part table name");
    if (this.isOp("(")) throw this.refuse("a table function");
    this.eatWord("AS");
    const alias = this.identOpt();
    if (alias !== undefined && this.isOp("(")) throw this.refuse("column aliases of a table");
    return alias === undefined ? { k: "table", name } : { k: "table", name, alias };
  }

  private byList(): OrderItem[] {
    this.expectWord("BY");
    return this.orderList();
  }

  private orderList(): OrderItem[] {
    const out: OrderItem[] = [];
    do {
      if (this.isWord("ALL")) throw this.refuse("ORDER BY ALL");
      const expr = this.expr();
      let desc = false;
      if (this.eatWord("DESC")) desc = true;
      else this.eatWord("ASC");
      let nullsFirst: boolean | undefined;
      if (this.eatWord("NULLS")) {
        if (this.eatWord("FIRST")) nullsFirst = true;
        else {
          this.expectWord("LAST");
          nullsFirst = false;
        }
      }
      out.push({ expr, desc, nullsFirst });
    } while (this.eatOp(","));
    return out;
  }

  expr(): Expr {
    this.enter();
    const e = this.or();
    this.leave();
    return e;
  }
  private or(): Expr {
    let l = this.and();
    while (this.eatWord("OR")) l = { k: "bin", op: "OR", l, r: this.and() };
    return l;
  }
  private and(): Expr {
    let l = this.not();
    while (this.eatWord("AND")) l = { k: "bin", op: "AND", l, r: this.not() };
    return l;
  }
  private not(): Expr {
    if (this.eatWord("NOT")) {
      this.enter();
      const e: Expr = { k: "not", e: this.not() };
      this.leave();
      return e;
    }
    return this.comparison();
  }
  private comparison(): Expr {
    const l = this.additive();
    if (this.eatWord("IS")) {
      const not = this.eatWord("NOT");
      if (this.eatWord("NULL")) return { k: "isnull", e: l, not };
      if (this.isWord("DISTINCT")) throw this.refuse("IS [NOT] DISTINCT FROM");
      throw this.refuse("IS TRUE/FALSE");
    }
    if (this.isWord("NOTNULL") || this.isWord("ISNULL")) throw this.refuse("ISNULL/NOTNULL");
    const not =
      this.isWord("NOT") && (this.isWord("IN", 1) || this.isWord("BETWEEN", 1) || this.isWord("LIKE", 1));
    if (not) this.i++;
    if (this.eatWord("IN")) {
      this.expectOp("(");
      if (this.isWord("SELECT") || this.isWord("WITH")) {
        const sub = this.query();
        this.expectOp(")");
        return { k: "in", e: l, sub, not };
      }
      const list: Expr[] = [];
      do list.push(this.expr());
      while (this.eatOp(","));
      this.expectOp(")");
      return { k: "in", e: l, list, not };
    }
    if (this.eatWord("BETWEEN")) {
      const lo = this.additive();
      this.expectWord("AND");
      return { k: "between", e: l, lo, hi: this.additive(), not };
    }
    if (this.eatWord("LIKE")) return { k: "like", e: l, pattern: this.additive(), not };
    if (not) throw this.refuse("NOT here");
    const tok = this.peek();
    if (tok?.kind === "op") {
      const map: Record<string, BinaryOp> = {
        "=": "=",
        "==": "=",
        "<>": "<>",
        "!=": "<>",
        "<": "<",
        "<=": "<=",
        ">": ">",
        ">=": ">=",
      };
      const op = map[tok.text];
      if (op) {
        this.i++;
        if (this.isWord("ANY") || this.isWord("ALL") || this.isWord("SOME"))
          throw this.refuse("quantified comparison");
        return { k: "bin", op, l, r: this.additive() };
      }
    }
    return l;
  }
  private additive(): Expr {
    return this.level(["+", "-", "||"], () => this.multiplicative());
  }
  private multiplicative(): Expr {
    return this.level(["*", "/", "%"], () => this.unary());
  }
  /** One left-associative level of binary operators. */
  private level(ops: readonly BinaryOp[], next: () => Expr): Expr {
    let l = next();
    for (;;) {
      const op = ops.find((o) => this.isOp(o));
      if (op === undefined) return l;
      this.i++;
      l = { k: "bin", op, l, r: next() };
    }
  }
  private unary(): Expr {
    if (this.eatOp("-")) {
      const next = this.peek();
      if (next?.kind === "number") {
        const e = this.postfix();
        if (e.k === "lit" && (e.lit === "int" || e.lit === "dec")) {
          return { ...e, text: `-${e.text}`, value: `-${e.value as string}` };
        }
        return { k: "neg", e };
      }
      return { k: "neg", e: this.unary() };
    }
    if (this.eatOp("+")) return this.unary();
    return this.postfix();
  }
  private postfix(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.eatOp("::")) {
        const [to, toText] = this.typeName();
        e = { k: "cast", e, to, toText, try: false };
      } else if (this.isOp("[")) throw this.refuse("subscripts");
      else if (this.isOp(".") && e.k === "fn") throw this.refuse("method-call syntax");
      else return e;
    }
  }

  /** A type name as CAST and `::` write it, with DuckDB's spelling for column names. */
  private typeName(): [SqlType, string] {
    const tok = this.peek();
    if (tok?.kind !== "word") throw this.refuse("expected a type name");
    this.i++;
    let name = tok.value.toUpperCase();
    if (name === "TIMESTAMP" && this.isWord("WITH")) {
      this.expectWord("WITH");
      this.expectWord("TIME");
      this.expectWord("ZONE");
      name = "TIMESTAMP WITH TIME ZONE";
    } else if (name === "DOUBLE" && this.eatWord("PRECISION")) name = "DOUBLE";
    name = TYPE_ALIASES[name] ?? name;
    if (this.eatOp("(")) {
      const a = this.peek();
      this.expectNumber();
      let b: Token | undefined;
      if (this.eatOp(",")) {
        b = this.peek();
        this.expectNumber();
      }
      this.expectOp(")");
      if (name !== "DECIMAL" && name !== "NUMERIC") throw this.refuse(`type parameters of ${name}`);
      name = `DECIMAL(${a?.value},${b?.value ?? "0"})`;
    }
    while (this.isOp("[") && this.isOp("]", 1)) {
      this.i += 2;
      name += "[]";
    }
    try {
      return [sqlTypeOf(name), name];
    } catch {
      throw this.refuse(`the type ${name}`);
    }
  }
  private expectNumber(): void {
    if (this.peek()?.kind !== "number") throw this.refuse("expected a number");
    this.i++;
  }

  private primary(): Expr {
    const tok = this.peek();
    if (!tok) throw this.refuse("unexpected end of statement");
    if (tok.kind === "number") {
      this.i++;
      return { k: "lit", lit: /^\d+$/.test(tok.value) ? "int" : "dec", text: tok.text, value: tok.value };
    }
    if (tok.kind === "string") {
      this.i++;
      return { k: "lit", lit: "str", text: tok.text, value: tok.value };
    }
    if (tok.kind === "op") {
      if (tok.text === "#") {
        this.i++;
        const n = this.peek();
        if (n?.kind !== "number" || !/^\d+$/.test(n.value)) throw this.refuse("a positional reference");
        this.i++;
        return { k: "pos", n: Number(n.value) };
      }
      if (tok.text === "*") {
        this.i++;
        return { k: "star" };
      }
      if (tok.text === "(") {
        this.i++;
        if (this.isWord("SELECT") || this.isWord("WITH")) {
          const sub = this.query();
          this.expectOp(")");
          return { k: "subq", sub };
        }
        const e = this.expr();
        if (this.isOp(",")) throw this.refuse("a row constructor");
        this.expectOp(")");
        return e;
      }
      if (tok.text === "{") return this.structLiteral();
      if (tok.text === "?" || tok.text === "$") throw this.refuse("a prepared parameter");
      throw this.refuse(`the operator "${tok.text}"`);
    }
    if (tok.kind === "quoted") {
      this.i++;
      return this.columnRest(tok.value);
    }
    const w = tok.value.toUpperCase();
    if (w === "NULL") {
      this.i++;
      return { k: "lit", lit: "null", text: "NULL", value: null };
    }
    if (w === "TRUE" || w === "FALSE") {
      this.i++;
      return { k: "lit", lit: "bool", text: w.toLowerCase(), value: w === "TRUE" };
    }
    if (w === "CASE") return this.caseExpr();
    if (w === "CAST" || w === "TRY_CAST") {
      this.i++;
      this.expectOp("(");
      const e = this.expr();
      this.expectWord("AS");
      const [to, toText] = this.typeName();
      this.expectOp(")");
      return { k: "cast", e, to, toText, try: w === "TRY_CAST" };
    }
    if (w === "EXISTS") {
      this.i++;
      this.expectOp("(");
      const sub = this.query();
      this.expectOp(")");
      return { k: "exists", sub, not: false };
    }
    if (w === "INTERVAL" || w === "DATE" || w === "TIMESTAMP" || w === "ARRAY" || w === "MAP") {
      if (this.peek(1)?.kind === "string" || this.isOp("[", 1)) throw this.refuse(`a ${w} literal`);
    }
    if (RESERVED.has(w)) throw this.refuse(`the keyword ${w}`);
    this.i++;
    if (this.isOp("(")) return this.call(tok.value);
    return this.columnRest(tok.value);
  }

  private columnRest(first: string): Expr {
    if (this.eatOp(".")) {
      if (this.eatOp("*")) return { k: "star", qual: first };
      const name = this.ident("a column name");
      if (this.isOp(".")) throw this.refuse("a three-part column name");
      return { k: "col", qual: first, name };
    }
    return { k: "col", name: first };
  }

  private structLiteral(): Expr {
    this.expectOp("{");
    const fields: [string, Expr][] = [];
    if (!this.isOp("}")) {
      do {
        const key = this.peek();
        if (key?.kind !== "string" && key?.kind !== "quoted" && key?.kind !== "word")
          throw this.refuse("a struct key");
        this.i++;
        this.expectOp(":");
        fields.push([key.value, this.expr()]);
      } while (this.eatOp(","));
    }
    this.expectOp("}");
    return { k: "struct", fields };
  }

  private caseExpr(): Expr {
    this.expectWord("CASE");
    const operand = this.isWord("WHEN") ? undefined : this.expr();
    const whens: [Expr, Expr][] = [];
    while (this.eatWord("WHEN")) {
      const w = this.expr();
      this.expectWord("THEN");
      whens.push([w, this.expr()]);
    }
    if (whens.length === 0) throw this.refuse("CASE without WHEN");
    const otherwise = this.eatWord("ELSE") ? this.expr() : undefined;
    this.expectWord("END");
    return { k: "case", operand, whens, otherwise };
  }

  private call(name: string): Expr {
    this.expectOp("(");
    const lower = name.toLowerCase();
    if (lower === "struct_pack") return this.structPack();
    const args: Expr[] = [];
    const named: [string, Expr][] = [];
    let distinct = false;
    let star = false;
    let orderBy: OrderItem[] | undefined;
    if (this.eatOp("*")) star = true;
    else if (!this.isOp(")")) {
      distinct = this.eatWord("DISTINCT");
      do {
        if (this.isOp(":=", 1)) {
          const key = this.ident("a named argument");
          this.expectOp(":=");
          named.push([key, this.expr()]);
        } else args.push(this.expr());
      } while (this.eatOp(","));
      if (this.eatWord("ORDER")) {
        this.expectWord("BY");
        orderBy = this.orderList();
      }
    }
    this.expectOp(")");
    if (this.isWord("FILTER")) throw this.refuse("aggregate FILTER");
    const fn: Expr = {
      k: "fn",
      name: lower,
      args,
      ...(named.length > 0 ? { named } : {}),
      distinct,
      star,
      orderBy,
    };
    if (this.eatWord("OVER")) {
      this.expectOp("(");
      const partitionBy: Expr[] = [];
      if (this.eatWord("PARTITION")) {
        this.expectWord("BY");
        do partitionBy.push(this.expr());
        while (this.eatOp(","));
      }
      const order = this.eatWord("ORDER") ? this.byList() : [];
      if (this.isWord("ROWS") || this.isWord("RANGE") || this.isWord("GROUPS"))
        throw this.refuse("window frames");
      this.expectOp(")");
      return { ...fn, over: { partitionBy, orderBy: order } };
    }
    return fn;
  }

  private structPack(): Expr {
    const fields: [string, Expr][] = [];
    do {
      const name = this.ident("a struct field");
      this.expectOp(":=");
      fields.push([name, this.expr()]);
    } while (this.eatOp(","));
    this.expectOp(")");
    return { k: "struct", fields };
  }
}

/** Parses one statement of the subset, or throws `Unsupported` naming the construct it met. */
export function parseQuery(tokens: readonly Token[]): Query {
  const p = new Parser(tokens);
  const q = p.query();
  if (!p.atEnd()) throw p.refuse("unexpected text after the query");
  return q;
}
