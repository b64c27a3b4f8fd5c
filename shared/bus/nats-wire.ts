import type { Msg } from "nats";
import { encodeJson } from "../util/json-text.ts";
import type { Headers } from "./port.ts";

/**
 * A request on NATS is one plain message: its headers travel in the payload with the data, as
 * `\x1e[headers,data]`, not as NATS headers, whose object, encoding and parsing on both sides cost
 * more than the JSON around them. No JSON text starts with 0x1e, so a message in the older form
 * (data alone, headers as NATS headers) is still read.
 */
const marker = 0x1e;
const markerText = String.fromCharCode(marker);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encode = (value: unknown) => encoder.encode(encodeJson(value ?? null));
export const decode = (bytes: Uint8Array) => (bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes)));

const noHeaders: Headers = {};

export const encodeRequest = (data: unknown, headers: Headers | undefined) =>
  encoder.encode(markerText + JSON.stringify([headers ?? noHeaders, data ?? null]));

/** The data and headers of a request message, in either form; throws on a malformed one. */
export function decodeRequest(msg: Msg): { data: unknown; headers: Headers } {
  const bytes = msg.data;
  if (bytes.length > 0 && bytes[0] === marker) {
    const [sent, data] = JSON.parse(decoder.decode(bytes.subarray(1))) as [Record<string, unknown> | null, unknown];
    // Keys as NATS headers arrived (lower case), whatever case the requester used.
    const headers: Headers = {};
    if (sent && typeof sent === "object") for (const k in sent) headers[k.toLowerCase()] = String(sent[k]);
    return { data, headers };
  }
  const headers: Headers = {};
  for (const k of msg.headers?.keys() ?? []) headers[k.toLowerCase()] = msg.headers!.get(k);
  return { data: decode(bytes), headers };
}
