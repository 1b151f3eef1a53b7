/**
 * Every host profile (but generic) against the facts of that host's published configuration
 * format, copied into tests/fixtures/host_formats/ (never fetched at test time): the file the
 * entry goes into, where servers sit, which fields an entry may hold and of what type, which it
 * must hold, the install link's form and, for editors the suite cannot run, whether the host
 * asks through MCP. Editors npm does not ship (VS Code, Cursor, Zed, Windsurf, Claude Desktop)
 * are checked only here; the npm hosts are also run by the host suite.
 */
import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { HOST_PROFILES, renderConfig } from "../../../src/profiles/mod.ts";
import { COMPILED, HOME_SOCKET, PLACES, SCRIPT } from "./golden/fixtures.ts";

const fieldType = z.union([
  z.object({ type: z.enum(["string", "string[]", "string-map", "boolean", "number"]) }),
  z.object({ const: z.string() }),
]);

const format = z.strictObject({
  source: z.string(),
  checked: z.string(),
  file: z.string(),
  serversAt: z.array(z.string()).min(1),
  rootFields: z.array(z.string()).optional(),
  required: z.array(z.string()),
  fields: z.record(z.string(), fieldType),
  installLinkPrefix: z.string().optional(),
  asksThroughMcp: z.boolean().optional(),
  asksSource: z.string().optional(),
});
type Format = z.infer<typeof format>;

const FORMATS = new URL("../../fixtures/host_formats/", import.meta.url);

async function formatOf(host: string): Promise<Format> {
  return format.parse(JSON.parse(await Deno.readTextFile(new URL(`${host}.json`, FORMATS))));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function fits(value: unknown, type: z.infer<typeof fieldType>): boolean {
  if ("const" in type) return value === type.const;
  switch (type.type) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "number":
      return typeof value === "number";
    case "string[]":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    case "string-map":
      return isRecord(value) && Object.values(value).every((item) => typeof item === "string");
  }
}

/** The problems of one printed configuration against the host's format; empty when it fits. */
function problems(text: string, language: "json" | "toml", spec: Format): string[] {
  const root: unknown = language === "json"
    ? JSON.parse(text)
    : JSON.parse(JSON.stringify(parseToml(text)));
  const found: string[] = [];
  if (!isRecord(root)) return ["the configuration is not an object"];
  const allowedRoot = [spec.serversAt[0], ...(spec.rootFields ?? [])];
  for (const key of Object.keys(root)) {
    if (!allowedRoot.includes(key)) found.push(`unknown top-level key ${key}`);
  }
  let servers: unknown = root;
  for (const key of spec.serversAt) servers = isRecord(servers) ? servers[key] : undefined;
  if (!isRecord(servers)) return [...found, `no server map at ${spec.serversAt.join(".")}`];
  const entry = servers.portreeve;
  if (!isRecord(entry)) return [...found, "no portreeve entry"];
  for (const key of spec.required) if (!(key in entry)) found.push(`missing ${key}`);
  for (const [key, value] of Object.entries(entry)) {
    const type = spec.fields[key];
    if (type === undefined) found.push(`field ${key} is not in the published format`);
    else if (!fits(value, type)) found.push(`field ${key} is not ${JSON.stringify(type)}`);
  }
  return found;
}

const HOSTS = HOST_PROFILES.filter((profile) => profile.id !== "generic");

Deno.test("published formats: every host but generic has its format's facts", async () => {
  const files: string[] = [];
  for await (const entry of Deno.readDir(FORMATS)) files.push(entry.name);
  assert.deepEqual(files.sort(), HOSTS.map((profile) => `${profile.id}.json`).sort());
});

for (const profile of HOSTS) {
  Deno.test(`published formats: ${profile.id}'s printed entry fits its published format`, async () => {
    const spec = await formatOf(profile.id);
    assert.ok(
      profile.configurationTarget.includes(spec.file),
      `${profile.id}: the target names ${spec.file}: ${profile.configurationTarget}`,
    );
    if (spec.asksThroughMcp !== undefined) {
      assert.equal(profile.asksThroughMcp, spec.asksThroughMcp, spec.asksSource);
    }
    const cases = [
      { portable: false, socket: HOME_SOCKET, installation: SCRIPT },
      { portable: false, socket: HOME_SOCKET, installation: COMPILED, approval: "off" },
      { portable: true, socket: HOME_SOCKET, installation: SCRIPT, label: "ci", toolset: "read" },
      ...PLACES.map((place) => ({
        portable: false,
        socket: place.socket,
        installation: place.script,
      })),
    ];
    for (const { installation, ...input } of cases) {
      const result = renderConfig({ host: profile.id, ...input }, installation);
      const where = `${profile.id} ${JSON.stringify(input)}`;
      assert.deepEqual(
        problems(result.configuration, result.configurationLanguage, spec),
        [],
        where,
      );
      if (spec.installLinkPrefix !== undefined) {
        assert.ok(result.installLink?.startsWith(spec.installLinkPrefix), where);
      }
    }
  });
}

Deno.test("published formats: the check finds an entry that does not fit", () => {
  const spec: Format = {
    source: "",
    checked: "",
    file: "mcp.json",
    serversAt: ["servers"],
    required: ["type", "command"],
    fields: { type: { const: "stdio" }, command: { type: "string" }, args: { type: "string[]" } },
  };
  const text = (value: unknown) => JSON.stringify(value);
  assert.deepEqual(
    problems(text({ servers: { portreeve: { type: "stdio", command: "c" } } }), "json", spec),
    [],
  );
  assert.deepEqual(problems(text({ mcpServers: {} }), "json", spec), [
    "unknown top-level key mcpServers",
    "no server map at servers",
  ]);
  assert.deepEqual(
    problems(text({ servers: { portreeve: { command: "c", args: [1], cwd: "/" } } }), "json", spec),
    [
      "missing type",
      'field args is not {"type":"string[]"}',
      "field cwd is not in the published format",
    ],
  );
});
