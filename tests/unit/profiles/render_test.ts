/**
 * Every host × exact/compiled/portable × label/toolset × awkward install paths: the emitted JSON,
 * TOML, shell command and install link must all give back exactly the entry each host's
 * expectation (expected.ts) describes for the command and arguments we rendered.
 */
import assert from "node:assert/strict";
import { confinedFlags } from "../../../src/shared/permissions.ts";
import {
  type ConfigResult,
  HOST_IDS,
  type Installation,
  renderConfig,
  type Toolset,
} from "../../../src/profiles/mod.ts";
import { ENV_SOCKET, HOME_SOCKET, PLACES, SCRIPT, shellWordsOfEach } from "./golden/fixtures.ts";
import type { SocketLocation } from "../../../src/shared/socket_location.ts";
import { entryOf, EXPECTED, type Launch } from "./expected.ts";

interface Variant {
  label?: string;
  toolset?: Toolset;
  approval?: string;
}
const VARIANTS: readonly Variant[] = [
  {},
  { label: "claude-main" },
  { toolset: "read" },
  { label: "ci.runner_2", toolset: "coordinate" },
  { toolset: "full" },
  { approval: "required" },
  { label: "unattended", approval: "off" },
  { approval: "auto" },
];

/** The command and args we expect, built independently of the renderer. */
function expected(
  mode: "script" | "compiled" | "portable",
  installation: Installation,
  socket: SocketLocation,
  variant: Variant,
): { command: string; args: string[] } {
  const pin = mode !== "portable" || socket.source === "flag" ||
    socket.source === "PORTREEVE_SOCKET" || socket.source === "PORTREEVE_HOME" ||
    socket.source === "XDG_STATE_HOME";
  const serve = [
    "serve",
    ...(pin ? ["--socket", socket.path] : []),
    ...(variant.label ? ["--label", variant.label] : []),
    ...(variant.toolset && variant.toolset !== "full" ? ["--toolset", variant.toolset] : []),
    // The default (required) is left out, like the default toolset.
    ...(variant.approval && variant.approval !== "required"
      ? ["--approval", variant.approval]
      : []),
  ];
  if (mode === "portable") return { command: "portreeve-mcp", args: serve };
  if (mode === "compiled") return { command: installation.execPath, args: serve };
  return {
    command: installation.execPath,
    args: ["run", ...confinedFlags(socket.path), installation.entryPath!, ...serve],
  };
}

/** Every printed entry turns off Deno's update check, its only network use. */
const ENV = { DENO_NO_UPDATE_CHECK: "1" };

Deno.test("profiles: every profile has its hand-written expectation", () => {
  assert.deepEqual([...HOST_IDS].sort(), Object.keys(EXPECTED).sort());
});

/** A setup command and the words its program must receive. */
interface SetupCheck {
  command: string;
  words: string[];
  where: string;
}

/** Checks one rendering against the host's expectation; returns its setup command's check. */
function checkRendering(result: ConfigResult, want: Launch, where: string): SetupCheck | null {
  const expected = EXPECTED[result.host];
  const entry = entryOf(expected.parse(result.configuration), expected.entryAt);
  assert.deepEqual(entry, expected.entry(want), `${where}: the configuration's entry`);
  if (expected.link === null) assert.equal(result.installLink, null, where);
  else {
    const link = result.installLink ?? "";
    assert.ok(link.startsWith(expected.link.prefix), `${where}: ${link}`);
    const decoded = expected.link.decode(link.slice(expected.link.prefix.length));
    assert.deepEqual(decoded, expected.link.entry(want), `${where}: the install link's entry`);
  }
  if (expected.setup === null) {
    assert.equal(result.setupCommand, null, where);
    return null;
  }
  const command = result.setupCommand ?? "";
  assert.ok(command.startsWith(`${expected.setup.program} `), `${where}: ${command}`);
  return { command, words: expected.setup.words(want), where };
}

/** Runs every setup command in bash and in dash, one process each. */
async function checkSetupWords(checks: readonly SetupCheck[]): Promise<void> {
  for (const shell of ["bash", "dash"]) {
    const got = await shellWordsOfEach(shell, checks.map((check) => check.command));
    checks.forEach((check, i) => assert.deepEqual(got[i], check.words, `${shell}: ${check.where}`));
  }
}

/** A daemon started with only PORTREEVE_HOME: the entry must name its socket. */
const PORTREEVE_HOME_SOCKET: SocketLocation = {
  path: "/srv/portreeve/portreeve.sock",
  source: "PORTREEVE_HOME",
};

for (const place of PLACES) {
  for (const mode of ["script", "compiled", "portable"] as const) {
    Deno.test(`profiles: ${place.name} paths, ${mode} — configuration parses back exactly`, async () => {
      const installation = mode === "compiled" ? place.compiled : place.script;
      const sockets = mode === "portable"
        ? [place.socket, HOME_SOCKET, ENV_SOCKET, PORTREEVE_HOME_SOCKET]
        : [place.socket];
      const setups: SetupCheck[] = [];
      for (const host of HOST_IDS) {
        for (const socket of sockets) {
          for (const variant of VARIANTS) {
            const result = renderConfig(
              { host, portable: mode === "portable", socket, ...variant },
              installation,
            );
            const want = expected(mode, installation, socket, variant);
            const where = `${host} ${JSON.stringify(variant)} ${socket.source}`;
            assert.equal(result.command, want.command, where);
            assert.deepEqual(result.args, want.args, where);
            assert.deepEqual(result.env, ENV, `${where}: update check off`);
            assert.equal(result.mode, mode === "portable" ? "portable" : "exact");
            const setup = checkRendering(result, { ...want, env: ENV }, where);
            if (setup !== null) setups.push(setup);
          }
        }
      }
      const withSetup = HOST_IDS.filter((host) => EXPECTED[host].setup !== null).length;
      assert.equal(setups.length, withSetup * sockets.length * VARIANTS.length);
      await checkSetupWords(setups);
    });
  }
}

Deno.test("profiles: the Claude add-json argument is the configured server entry", () => {
  const result = renderConfig({ host: "claude", portable: false, socket: HOME_SOCKET }, SCRIPT);
  const entry = JSON.parse(result.configuration).mcpServers.portreeve;
  assert.ok(result.setupCommand!.endsWith(` '${JSON.stringify(entry)}'`));
});

Deno.test("profiles: a label is trimmed before use", () => {
  const result = renderConfig(
    { host: "generic", portable: true, socket: HOME_SOCKET, label: "  ok-1 " },
    SCRIPT,
  );
  assert.deepEqual(result.args, ["serve", "--label", "ok-1"]);
});

Deno.test("profiles: exact mode rejects a socket path Deno flags cannot express", () => {
  assert.throws(
    () =>
      renderConfig(
        { host: "codex", portable: false, socket: { path: "/tmp/a,b.sock", source: "flag" } },
        SCRIPT,
      ),
    { name: "ConfigError", code: "socket", message: /comma/ },
  );
});

Deno.test("profiles: exact mode needs a local entry file", () => {
  assert.throws(
    () =>
      renderConfig(
        { host: "codex", portable: false, socket: HOME_SOCKET },
        { kind: "script", execPath: "/usr/bin/deno", entryPath: null },
      ),
    { name: "ConfigError", code: "installation" },
  );
});
