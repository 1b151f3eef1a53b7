/**
 * Every host × exact/compiled/portable × label/toolset × awkward install paths: the emitted JSON,
 * TOML and shell command must all give back exactly the command and arguments we rendered.
 */
import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";
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

/** The server entry each host's configuration must contain, parsed back from its text. */
function parsedServer(result: ConfigResult): unknown {
  if (result.host === "codex") {
    // smol-toml builds null-prototype objects; a JSON copy compares with plain literals.
    const toml = JSON.parse(JSON.stringify(parseToml(result.configuration))) as {
      mcp_servers: { portreeve: unknown };
    };
    assert.deepEqual(Object.keys(toml), ["mcp_servers"]);
    assert.deepEqual(Object.keys(toml.mcp_servers), ["portreeve"]);
    return toml.mcp_servers.portreeve;
  }
  const json = JSON.parse(result.configuration);
  if (result.host === "claude" || result.host === "gemini") {
    assert.deepEqual(Object.keys(json), ["mcpServers"]);
    assert.deepEqual(Object.keys(json.mcpServers), ["portreeve"]);
    return json.mcpServers.portreeve;
  }
  return json;
}

/** Every printed entry turns off Deno's update check, its only network use. */
const ENV = { DENO_NO_UPDATE_CHECK: "1" };

function expectedServer(host: string, command: string, args: string[]): unknown {
  if (host === "codex") {
    return { command, args, env: ENV, startup_timeout_sec: 20, tool_timeout_sec: 180 };
  }
  if (host === "gemini") return { command, args, env: ENV };
  return { type: "stdio", command, args, env: ENV };
}

/** The words the host CLI receives from the setup command, before shell quoting. */
function expectedSetupWords(host: string, command: string, args: string[]): string[] | null {
  if (host === "claude") {
    const server = JSON.stringify({ type: "stdio", command, args, env: ENV });
    return ["mcp", "add-json", "--scope", "user", "portreeve", server];
  }
  if (host === "codex") {
    return ["mcp", "add", "portreeve", "--env", "DENO_NO_UPDATE_CHECK=1", "--", command, ...args];
  }
  if (host === "gemini") {
    return [
      "mcp",
      "add",
      "--env",
      "DENO_NO_UPDATE_CHECK=1",
      "-s",
      "user",
      "portreeve",
      command,
      "--",
      ...args,
    ];
  }
  return null;
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
      const setups: { command: string; words: string[]; where: string }[] = [];
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
            assert.deepEqual(parsedServer(result), expectedServer(host, want.command, want.args));
            const words = expectedSetupWords(host, want.command, want.args);
            if (words === null) {
              assert.equal(result.setupCommand, null);
              continue;
            }
            setups.push({ command: result.setupCommand!, words, where });
          }
        }
      }
      assert.equal(setups.length, 3 * sockets.length * VARIANTS.length);
      // Every setup command, as each shell reads it: one process per shell.
      for (const shell of ["bash", "dash"]) {
        const got = await shellWordsOfEach(shell, setups.map((setup) => setup.command));
        setups.forEach((setup, i) =>
          assert.deepEqual(got[i], setup.words, `${shell}: ${setup.where}`)
        );
      }
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
