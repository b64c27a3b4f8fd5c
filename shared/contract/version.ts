/**
 * The one version story (docs/operating.md#upgrading). The server's version is package.json's: it names a release,
 * and CHANGELOG.md has an entry for each. The API's version is the contract clients code against
 * (`/openapi.json`'s info.version); it moves only when a route, field or error code changes, so a
 * server release may keep it. Each store's schema version (shared/store/migrations.ts) moves only when
 * stored documents change shape. tests/unit/versions.test.ts keeps this file and package.json agreed.
 */
export const serverVersion = "0.1.0";
export const apiVersion = "0.4.0";
