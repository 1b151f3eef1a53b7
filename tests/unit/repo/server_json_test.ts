/**
 * server.json, what the official MCP Registry lists, is valid against the registry's published
 * schema (kept in tests/fixtures/mcp-registry/, the version its `$schema` names) and agrees
 * with the npm package it points to: its name is the package's `mcpName`, its package is
 * @portreeve/mcp at this version, run with `serve` over stdio, and its GitHub namespace is the
 * repository it names.
 */
import assert from "node:assert/strict";
import ajvModule from "ajv";
import formatsModule from "ajv-formats";
import server from "../../../server.json" with { type: "json" };
import schema from "../../fixtures/mcp-registry/server.schema.json" with { type: "json" };
import { packageManifest } from "../../../scripts/npm_package.ts";
import { NPM_PACKAGE } from "../../../src/shared/install_layout.ts";
import { SOFTWARE_VERSION } from "../../../src/shared/options.ts";

// Both are CommonJS packages whose class and function are their `default` export.
const Ajv = ajvModule.default;
const addFormats = formatsModule.default;

function validator() {
  // Draft-07, as the schema declares; its `example` keywords are annotations.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

/** Why `document` is not a valid server.json; empty when it is. */
function problems(document: unknown): string[] {
  const validate = validator();
  if (validate(document)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

Deno.test("server.json: valid against the registry's published schema it names", () => {
  assert.equal(server.$schema, schema.$id, "the kept schema is the one server.json names");
  assert.deepEqual(problems(server), []);
});

Deno.test("server.json: the validator refuses what the registry refuses", () => {
  const bad = [
    { ...server, description: "x".repeat(101) },
    { ...server, name: "portreeve-mcp" },
    { ...server, packages: [{ ...server.packages[0], version: "latest" }] },
    { ...server, packages: [{ ...server.packages[0], transport: undefined }] },
    { ...server, repository: { url: "not a url", source: "github" } },
  ];
  for (const document of bad) assert.notDeepEqual(problems(document), [], JSON.stringify(document));
});

Deno.test("server.json and the npm package name each other, at this version", () => {
  assert.equal(packageManifest(undefined).mcpName, server.name);
  assert.equal(server.version, SOFTWARE_VERSION);
  assert.equal(server.packages.length, 1);
  const [npm] = server.packages;
  assert.deepEqual(
    [npm.registryType, npm.identifier, npm.version, npm.transport.type],
    ["npm", NPM_PACKAGE, SOFTWARE_VERSION, "stdio"],
  );
  assert.deepEqual(npm.packageArguments, [{ type: "positional", value: "serve" }]);
  // The registry lets a GitHub account publish only under io.github.<its name>/.
  const repo = server.repository.url.match(/^https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)$/);
  assert.ok(repo !== null, server.repository.url);
  assert.equal(server.name, `io.github.${repo[1]}/${repo[2]}`);
});
