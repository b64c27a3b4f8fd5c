import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startAllInOne } from "../../services/all-in-one.ts";
import { ErrorCode } from "../../shared/contract/errors.ts";
import { ReadinessResponse } from "../../shared/contract/operations.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { tempDir } from "../helpers/infra.ts";

// The served /openapi.json beyond the route table's API: the operator endpoints, and the error codes.
let base: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  const { gateway, stops } = await startAllInOne(
    readEnv({ SAVEPOINT_DATA_DIR: tempDir("openapi-ops") }),
    createLogger({ test: "openapi-ops" }),
  );
  gateway.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${gateway.server!.port}`;
  stop = async () => {
    await gateway.stop();
    for (const s of [...stops].reverse()) await s();
  };
});
afterAll(() => stop?.());

describe("OpenAPI document: operations and errors", () => {
  test("the operator endpoints /readyz and /metrics are in the document, with what they answer", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as any;
    const ready = doc.paths["/readyz"]?.get;
    expect(ready?.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ReadinessResponse",
    });
    expect(ready?.responses["503"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ReadinessResponse",
    });
    expect(Object.keys(doc.components.schemas.ReadinessResponse.properties).sort()).toEqual([
      "backup",
      "bus",
      "degraded",
      "draining",
      "ready",
      "services",
    ]);
    const metrics = doc.paths["/metrics"]?.get;
    expect(Object.keys(metrics?.responses["200"].content ?? {})).toEqual(["text/plain; version=0.0.4"]);
    // What the document says /readyz answers is what it answers.
    const answer = await fetch(`${base}/readyz`);
    expect(ReadinessResponse.safeParse(await answer.json()).success).toBe(true);
  });

  test("ErrorResponse.code is the closed set of error codes, and every 4xx of every operation names its codes", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as any;
    for (const [path, ops] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>,
    )) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) >= 400 && Number(status) < 500)
            expect([method, path, status, response.description]).toEqual([
              method,
              path,
              status,
              expect.stringMatching(/`[a-z_0-9]+`/),
            ]);
        }
      }
    }
    expect(doc.components.schemas.ErrorResponse.properties.error.properties.code.enum).toEqual([...ErrorCode.options]);
  });
});
