import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { extname, join, relative } from "node:path";

/**
 * `npm run sdk-unity:meta`: writes the `.meta` file Unity needs beside every asset of the package that
 * lacks one. A package added from a git URL is read-only to Unity, which ignores an asset without its
 * `.meta` there, so they are committed. Each GUID is derived from the asset's path in the package: the
 * same on every machine, and unchanged while the file keeps its place. Folders ending in `~` (Samples~,
 * Tools~) and dot files are not assets.
 */
export const packageDir = join(import.meta.dir, "..");

const isAsset = (name: string) => !name.startsWith(".") && !name.endsWith("~") && !name.endsWith(".meta");

const guidOf = (path: string) =>
  createHash("md5")
    .update(`com.savepoint.client/${path.split("\\").join("/")}`)
    .digest("hex");

const importers: Record<string, string> = {
  ".cs":
    "MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n",
  ".asmdef": "AssemblyDefinitionImporter:\n  externalObjects: {}\n",
  ".json": "TextScriptImporter:\n  externalObjects: {}\n",
  ".md": "TextScriptImporter:\n  externalObjects: {}\n",
  ".xml": "TextScriptImporter:\n  externalObjects: {}\n",
};
const tail = "  userData: \n  assetBundleName: \n  assetBundleVariant: \n";

/** The `.meta` text of the asset at `path` (relative to the package). */
function metaOf(path: string, folder: boolean): string {
  const head = `fileFormatVersion: 2\nguid: ${guidOf(path)}\n`;
  if (folder) return `${head}folderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n${tail}`;
  return `${head}${importers[extname(path)] ?? "DefaultImporter:\n  externalObjects: {}\n"}${tail}`;
}

/** Every asset of the package, folders included, relative to it. */
function assetsOf(dir = packageDir): { path: string; folder: boolean }[] {
  const found: { path: string; folder: boolean }[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!isAsset(name)) continue;
    const full = join(dir, name);
    const folder = statSync(full).isDirectory();
    found.push({ path: relative(packageDir, full), folder });
    if (folder) found.push(...assetsOf(full));
  }
  return found;
}

let written = 0;
for (const a of assetsOf()) {
  const file = join(packageDir, `${a.path}.meta`);
  if (existsSync(file)) continue;
  writeFileSync(file, metaOf(a.path, a.folder));
  written++;
}
console.log(`${written} .meta file(s) written`);
