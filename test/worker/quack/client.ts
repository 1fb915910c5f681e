/** A minimal Quack client for tests: encodes one message, posts it to the Worker, decodes the answer. */
import { SELF } from "cloudflare:test";
import { decodeEnvelope, encodeEnvelope, type Message, MessageType } from "../../../worker/quack/messages.ts";

export async function post(message: Message, connectionId = "", raw?: Uint8Array): Promise<Message> {
  const body =
    raw ?? encodeEnvelope({ header: { type: message.type, connectionId, clientQueryId: 1n }, message });
  const res = await SELF.fetch("https://edge.test/quack", {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body,
  });
  if (res.status !== 200) throw new Error(`POST /quack answered ${res.status}: ${await res.text()}`);
  if (res.headers.get("content-type") !== "application/vnd.duckdb") throw new Error("wrong content type");
  return decodeEnvelope(new Uint8Array(await res.arrayBuffer())).message;
}

export function connectRequest(authString: string): Message {
  return {
    type: MessageType.CONNECTION_REQUEST,
    authString,
    clientVersion: "v1.5.5",
    clientPlatform: "linux_amd64",
    minVersion: 1,
    maxVersion: 1,
  };
}

/** Connects and returns the connection id, or throws with the server's error text. */
export async function connect(authString: string): Promise<string> {
  const body = encodeEnvelope({
    header: { type: MessageType.CONNECTION_REQUEST, connectionId: "", clientQueryId: 1n },
    message: connectRequest(authString),
  });
  const res = await SELF.fetch("https://edge.test/quack", { method: "POST", body });
  const env = decodeEnvelope(new Uint8Array(await res.arrayBuffer()));
  if (env.message.type !== MessageType.CONNECTION_RESPONSE) {
    throw new Error(
      env.message.type === MessageType.ERROR_RESPONSE ? env.message.message : "unexpected answer",
    );
  }
  return env.header.connectionId;
}

export function prepare(connectionId: string, sql: string): Promise<Message> {
  return post({ type: MessageType.PREPARE_REQUEST, sql }, connectionId);
}
