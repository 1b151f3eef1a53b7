/** The npm package's manifest agrees with the rest of the project (the host suite installs it). */
import assert from "node:assert/strict";
import { packageManifest } from "../../../scripts/npm_package.ts";
import { DENO_VERSION } from "../../../scripts/release.ts";
import { LAUNCHER_NAME, NPM_PACKAGE } from "../../../src/shared/install_layout.ts";
import { SOFTWARE_VERSION } from "../../../src/shared/options.ts";
import config from "../../../deno.json" with { type: "json" };

Deno.test("npm package: named as deno.json, MIT, one bin, npm's Deno pinned to the tested version", () => {
  const manifest = packageManifest(undefined);
  assert.equal(manifest.name, NPM_PACKAGE);
  assert.equal(manifest.name, config.name);
  assert.equal(manifest.version, SOFTWARE_VERSION);
  assert.equal(manifest.license, "MIT");
  assert.deepEqual(manifest.bin, { [LAUNCHER_NAME]: `bin/${LAUNCHER_NAME}` });
  assert.deepEqual(manifest.dependencies, { deno: DENO_VERSION });
  assert.equal("repository" in manifest, false);
  const url = "git+https://github.com/example/portreeve-mcp.git";
  assert.deepEqual(packageManifest(url).repository, { type: "git", url });
});
