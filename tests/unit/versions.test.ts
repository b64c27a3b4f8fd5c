import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openApiDocument } from "../../services/gateway/openapi.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import { apiVersion, serverVersion } from "../../shared/contract/version.ts";

// One version story and one licence (docs/operating.md#upgrading): the files that state them agree.
const root = join(import.meta.dir, "..", "..");
const json = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"));
const text = (path: string) => readFileSync(join(root, path), "utf8");

test("the server's version is package.json's, has a CHANGELOG entry, and the API's is the OpenAPI document's", () => {
  expect(json("package.json").version).toBe(serverVersion);
  expect(text("CHANGELOG.md")).toContain(`## ${serverVersion}`);
  expect(text("CHANGELOG.md")).toContain(`API ${apiVersion}`);
  expect(text("README.md")).toContain(`(v${apiVersion})`);
  const doc = openApiDocument(allRoutes) as { info: { version: string } };
  expect(doc.info.version).toBe(apiVersion);
});

test("server, SDK and API document all say MIT, as LICENSE does", () => {
  expect(text("LICENSE")).toStartWith("MIT License");
  expect(text("sdk/LICENSE")).toBe(text("LICENSE"));
  expect(json("package.json").license).toBe("MIT");
  expect(json("sdk/package.json").license).toBe("MIT");
  const doc = openApiDocument(allRoutes) as { info: { license: { identifier: string } } };
  expect(doc.info.license.identifier).toBe("MIT");
});
