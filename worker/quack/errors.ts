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

/** A CONNECTION_REQUEST's token or a connection id was refused; the text tells the user what to do. */
export class QuackAuthError extends CodedError {
  readonly code = "QuackAuthError";
}

/** The token may read this lake but the request writes (read scope), or may not create the lake. */
export class QuackForbidden extends CodedError {
  readonly code = "QuackForbidden";
}
