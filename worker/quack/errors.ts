/**
 * Typed errors of the Quack front door. Each becomes an ERROR_RESPONSE whose message is the error's text
 * (HTTP 200, as stock answers), so a DuckDB client shows exactly this message.
 */
import { CodedError } from "../../storage/errors.ts";

/** The request body is not a well-formed Quack v1 message (truncated, unknown field, bad value). */
export class QuackProtocolError extends CodedError {
  readonly code = "QuackProtocolError";
}

/** A value cannot be encoded as the column's DuckDB type (e.g. a string in an INTEGER column). */
export class QuackEncodeError extends CodedError {
  readonly code = "QuackEncodeError";
}

/** A named limit of the Quack front door was reached (message bytes, result rows, sessions). */
export class QuackLimit extends CodedError {
  readonly code = "QuackLimit";
}
