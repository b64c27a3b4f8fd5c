import { Limits } from "../../shared/contract/common.ts";
import { AppError, fail } from "../../shared/contract/errors.ts";

const tooLarge = (actualBytes: number) =>
  new AppError("payload_too_large", `The request body is larger than ${Limits.requestBodyBytes} bytes.`, {
    field: "body",
    limitBytes: Limits.requestBodyBytes,
    actualBytes,
  });

const malformed = (message: string) => fail.invalidRequest([{ path: "body", message }]);

/**
 * Reads a JSON body, refusing more than 1 MiB before parsing: by Content-Length when sent, else by
 * counting while streaming. An empty body is `undefined`.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > Limits.requestBodyBytes) throw tooLarge(declared);
  if (!request.body) return undefined;

  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > Limits.requestBodyBytes) throw tooLarge(size);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;

  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(type)) throw malformed("Content-Type must be application/json");
  try {
    return JSON.parse(Buffer.concat(chunks, size).toString("utf8"));
  } catch {
    throw malformed("Malformed JSON");
  }
}
