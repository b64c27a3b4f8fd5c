import { Limits } from "../../shared/contract/common.ts";
import { AppError, fail } from "../../shared/contract/errors.ts";
import {
  bracketsUpTo,
  deeperThan,
  faithfulText,
  hasLoneSurrogate,
  maxJsonDepth,
  vouchFor,
} from "../../shared/util/json.ts";

const tooLarge = (actualBytes: number) =>
  new AppError("payload_too_large", `The request body is larger than ${Limits.requestBodyBytes} bytes.`, {
    field: "body",
    limitBytes: Limits.requestBodyBytes,
    actualBytes,
  });

// fatal: bytes that are not UTF-8 are refused, never turned into U+FFFD.
const utf8 = new TextDecoder("utf-8", { fatal: true });
/** Levels of a request body around its deepest free-form field: body -> slot -> data. */
const requestShapeDepth = 2;

const malformed = (message: string) => fail.invalidRequest([{ path: "body", message }]);

/**
 * Reads a body as text, refusing more than 1 MiB before reading it all: by Content-Length when sent,
 * else by counting while streaming. Bytes that are not UTF-8 are refused. An empty body is `undefined`.
 */
export async function readTextBody(request: Request): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > Limits.requestBodyBytes) throw tooLarge(declared);
  if (!request.body) return undefined;
  // A declared length within the limit is read in one piece: streaming it chunk by chunk cost the
  // gateway more than parsing it.
  if (declared >= 0) return decodeUtf8(new Uint8Array(await request.arrayBuffer()));

  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > Limits.requestBodyBytes) throw tooLarge(size);
    chunks.push(chunk);
  }
  return decodeUtf8(Buffer.concat(chunks, size));
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  if (bytes.byteLength === 0) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    throw malformed("The body is not valid UTF-8");
  }
}

/** Reads a JSON body with `readTextBody`'s limits, then parses it. An empty body is `undefined`. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readTextBody(request);
  if (text === undefined) return undefined;
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(type)) throw malformed("Content-Type must be application/json");
  // Free-form values may nest maxJsonDepth levels below the few levels of the request's own shape.
  const limit = maxJsonDepth + requestShapeDepth;
  const brackets = bracketsUpTo(text, limit);
  if (deeperThan(text, limit, brackets)) throw malformed(`JSON must not nest deeper than ${maxJsonDepth} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed("Malformed JSON");
  }
  // Text decoded from UTF-8 holds no surrogate of its own: one can only come from a \u escape.
  if (text.includes("\\u") && hasLoneSurrogate(value)) {
    throw malformed("Strings must be valid Unicode: a lone surrogate such as \\ud800 cannot be stored faithfully");
  }
  if (faithfulText(text, brackets)) vouchFor(value, requestShapeDepth);
  return value;
}
