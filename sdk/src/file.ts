// `@savepoint/client/file`: the file adapter lives in its own entry so browser bundles never import node:fs.
export { fileStorage } from "./storage/file.ts";
