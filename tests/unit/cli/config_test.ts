/** `runConfigCommand`: argv parsing, usage errors, exit codes and the --json shape. */
import assert from "node:assert/strict";
import { HOST_IDS, HOST_PROFILES } from "../../../src/profiles/mod.ts";
import { parseOptions } from "../../../src/cli/options.ts";
import { SETUP_OPTIONS } from "../../../src/cli/setup.ts";
import { confinedFlags } from "../../../src/shared/permissions.ts";
import { type ConfigDeps, runConfigCommand } from "../../../src/cli/config.ts";
import { detectInstallation, entryPathOf } from "../../../src/shared/installation.ts";
import { COMPILED, SCRIPT } from "../profiles/golden/fixtures.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const HOME_ONLY = { HOME: "/home/ada" };

function run(args: string[], env: Record<string, string> = HOME_ONLY, deps: ConfigDeps = {}): Run {
  let stdout = "";
  let stderr = "";
  const code = runConfigCommand(args, {
    stdout: (text) => stdout += text,
    stderr: (text) => stderr += text,
  }, {
    installation: SCRIPT,
    env: (name) => env[name],
    os: "linux",
    listening: () => true,
    ...deps,
  });
  return { code, stdout, stderr };
}

/** A usage error: exit 2, one line on stderr, nothing on stdout. */
function assertUsage(args: string[], message: RegExp): void {
  const result = run(args);
  assert.equal(result.code, 2, args.join(" "));
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^portreeve-mcp config: [^\n]+\n$/);
  assert.match(result.stderr, message);
}

Deno.test("config: human output names host and mode and exits 0", () => {
  const result = run(["--host", "codex"]);
  assert.equal(result.code, 0);
  assert.equal(result.stderr, "");
  assert.match(
    result.stdout,
    /^PortReeve MCP for OpenAI Codex: exact command for this installation\n/,
  );
  assert.match(result.stdout, /\n\[mcp_servers\.portreeve\]\n/);
  assert.match(
    result.stdout,
    /\n {2}codex mcp add portreeve --env DENO_NO_UPDATE_CHECK=1 -- \/home\/ada\/\.deno\/bin\/deno run /,
  );
});

Deno.test("config: warns, without failing, when nothing listens on the socket it pins", () => {
  for (const json of [[], ["--json"]]) {
    const result = run(["--host", "claude", ...json], HOME_ONLY, { listening: () => false });
    assert.equal(result.code, 0, "the daemon may start later");
    const socket = "/home/ada/.local/state/portreeve/portreeve.sock";
    assert.match(
      result.stderr,
      new RegExp(
        `^portreeve-mcp config: Warning: nothing listens on ${socket} yet [^\n]*` +
          "`portreeve start`[^\n]*\n$",
      ),
    );
    assert.ok(result.stdout.length > 0, "the entry is printed all the same");
  }
  const unknown = run(["--host", "claude"], HOME_ONLY, { listening: () => null });
  assert.equal(unknown.stderr, "", "no warning when it cannot tell");
});

Deno.test("config: --json prints one versioned line with the documented keys", () => {
  const result = run(["--host", "claude", "--label", "main", "--toolset", "read", "--json"]);
  assert.equal(result.code, 0);
  assert.equal(result.stderr, "");
  assert.equal(result.stdout.split("\n").length, 2);
  const body = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(body), ["version", "config"]);
  assert.equal(body.version, 1);
  const config = body.config;
  assert.deepEqual(Object.keys(config).sort(), [
    "approval",
    "args",
    "asksThroughMcp",
    "command",
    "configuration",
    "configurationLanguage",
    "configurationTarget",
    "env",
    "flagsToolErrors",
    "host",
    "hostLabel",
    "installLink",
    "mode",
    "notes",
    "resultLimitBytes",
    "setupCommand",
    "socket",
  ]);
  const socket = "/home/ada/.local/state/portreeve/portreeve.sock";
  assert.equal(config.host, "claude");
  assert.equal(config.hostLabel, "Claude Code");
  assert.deepEqual(config.approval, {
    mode: "required",
    asksThroughMcp: true,
    person: "asked_through_mcp",
  });
  assert.equal(config.mode, "exact");
  assert.equal(config.configurationLanguage, "json");
  assert.equal(config.command, SCRIPT.execPath);
  assert.deepEqual(config.args, [
    "run",
    ...confinedFlags(socket),
    SCRIPT.entryPath,
    "serve",
    "--socket",
    socket,
    "--label",
    "main",
    "--toolset",
    "read",
  ]);
  assert.deepEqual(config.env, { DENO_NO_UPDATE_CHECK: "1" });
  assert.equal(config.socket, socket);
  assert.equal(config.flagsToolErrors, true);
  const gemini = JSON.parse(run(["--host", "gemini", "--json"]).stdout).config;
  assert.equal(gemini.flagsToolErrors, false, "Gemini CLI gets its errors unflagged");
  assert.deepEqual(JSON.parse(config.configuration).mcpServers.portreeve.args, config.args);
  assert.match(config.setupCommand, /^claude mcp add-json --scope user portreeve '\{/);
  assert.ok(config.notes.length >= 3 && config.notes.every((n: unknown) => typeof n === "string"));
});

Deno.test("config: the socket follows discovery (XDG_STATE_HOME, PORTREEVE_SOCKET, macOS)", () => {
  const xdg = JSON.parse(
    run(["--host", "generic", "--json"], { ...HOME_ONLY, XDG_STATE_HOME: "/x" }).stdout,
  );
  assert.equal(xdg.config.socket, "/x/portreeve/portreeve.sock");
  const env = JSON.parse(
    run(["--host", "generic", "--portable", "--json"], { PORTREEVE_SOCKET: "/run/p.sock" }).stdout,
  );
  assert.deepEqual(env.config.args, ["serve", "--socket", "/run/p.sock"]);
  const mac = JSON.parse(run(["--host", "generic", "--json"], HOME_ONLY, { os: "darwin" }).stdout);
  assert.equal(mac.config.socket, "/home/ada/Library/Application Support/Portreeve/portreeve.sock");
  const flag = JSON.parse(
    run(["--host", "generic", "--socket", "/a//b/./s.sock", "--json"]).stdout,
  );
  assert.equal(flag.config.socket, "/a/b/s.sock");
});

Deno.test("config: portable mode with a HOME default leaves discovery to the bridge", () => {
  const body = JSON.parse(run(["--host", "codex", "--portable", "--json"]).stdout);
  assert.equal(body.config.command, "portreeve-mcp");
  assert.deepEqual(body.config.args, ["serve"]);
  assert.equal(body.config.socket, null);
  assert.equal(
    body.config.setupCommand,
    "codex mcp add portreeve --env DENO_NO_UPDATE_CHECK=1 -- portreeve-mcp serve",
  );
});

Deno.test("config: --host is required and must be known", () => {
  const hosts = "claude, codex, gemini, generic, opencode, copilot, qwen, cline, vscode, " +
    "cursor, zed, windsurf, claude-desktop";
  assertUsage([], new RegExp(`--host is required \\(one of ${hosts}\\)`));
  assertUsage(["--host", "atom"], new RegExp(`unknown --host "atom"; valid hosts: ${hosts}`));
  assertUsage(["--host"], /'--host <value>' argument missing/);
  assertUsage(["--host", "--portable"], /'--host' argument is ambiguous/);
});

Deno.test("config: labels are validated", () => {
  for (const label of ["", "   ", "-bad", "../x", "a b", ".x", "é", "x".repeat(65), "a/b"]) {
    assertUsage(["--host", "generic", `--label=${label}`], /invalid --label .*1-64 characters/);
  }
  const ok = run(["--host", "generic", "--label", ` ${"x".repeat(64)} `, "--json"]);
  assert.equal(ok.code, 0);
  assert.deepEqual(JSON.parse(ok.stdout).config.args.slice(-2), ["--label", "x".repeat(64)]);
});

Deno.test("config: toolsets, sockets and stray arguments are usage errors", () => {
  assertUsage(["--host", "codex", "--toolset", "write"], /valid toolsets: read, coordinate, full/);
  assertUsage(["--host", "codex", "--approval", "ask"], /valid modes: required, auto, off/);
  assertUsage(["--host", "codex", "--socket", "rel/p.sock"], /--socket must be an absolute path/);
  assertUsage(["--host", "codex", "--socket", ""], /--socket must be an absolute path/);
  assertUsage(["--host", "codex", "--force"], /Unknown option '--force'/);
  assertUsage(["--host", "codex", "extra"], /Unexpected argument 'extra'/);
  assertUsage(["--host", "codex", "--portable=yes"], /does not take an argument/);
});

Deno.test("config: with --json, errors are also a JSON object on stdout", () => {
  const result = run(["--json", "--host", "nope"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^portreeve-mcp config: unknown --host "nope"/);
  assert.deepEqual(JSON.parse(result.stdout), {
    version: 1,
    error: {
      code: "usage",
      message: `unknown --host "nope"; valid hosts: ${HOST_IDS.join(", ")}`,
    },
  });
});

Deno.test("config: an undiscoverable socket exits 1 with code socket", () => {
  const envs: Record<string, string>[] = [{}, { PORTREEVE_SOCKET: "relative.sock" }, { HOME: "h" }];
  for (const env of envs) {
    const result = run(["--host", "codex", "--json"], env);
    assert.equal(result.code, 1, JSON.stringify(env));
    assert.equal(JSON.parse(result.stdout).error.code, "socket");
    assert.match(result.stderr, /^portreeve-mcp config: [^\n]+\n$/);
  }
});

Deno.test("config: a compiled binary refuses a socket its permissions do not cover", () => {
  const granted = (path: string) => path === "/home/ada/.local/state/portreeve/portreeve.sock";
  const deps = { installation: COMPILED, socketGranted: granted };
  const ok = run(["--host", "codex", "--json"], HOME_ONLY, deps);
  assert.equal(ok.code, 0);
  assert.equal(JSON.parse(ok.stdout).config.command, COMPILED.execPath);
  const other = run(["--host", "codex", "--socket", "/other.sock"], HOME_ONLY, deps);
  assert.equal(other.code, 1);
  assert.match(other.stderr, /compiled for a different socket than \/other\.sock/);
  // A portable command does not run this binary's grant, so it is still printed.
  assert.equal(
    run(["--host", "codex", "--socket", "/other.sock", "--portable"], HOME_ONLY, deps).code,
    0,
  );
});

Deno.test("config: --help prints usage and exits 0", () => {
  const result = run(["--help"]);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^usage: portreeve-mcp config --host HOST /);
  // Every host is listed, and no help line is wider than the help is written for.
  for (const host of HOST_IDS) assert.match(result.stdout, new RegExp(`[ ,]${host}(,|\n)`));
  const widest = Math.max(...result.stdout.split("\n").slice(1).map((line) => line.length));
  assert.ok(widest <= 92, `a help line of ${widest} characters`);
});

Deno.test("installation: detected from the running deno and entry module", () => {
  const installation = detectInstallation();
  assert.equal(installation.kind, "script");
  assert.equal(installation.execPath, Deno.execPath());
  assert.ok(installation.entryPath?.startsWith("/"));
  assert.equal(entryPathOf("file:///a%20b/%E6%97%A5%27.ts"), "/a b/日'.ts");
  assert.equal(entryPathOf("https://example.com/main.ts"), null);
});

Deno.test("config: runs under the confinement flags alone and names its own entry", async () => {
  const socket = "/tmp/portreeve test/it's.sock";
  const entry = new URL("../profiles/golden/run_config.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...confinedFlags(socket), entry, "--host", "generic", "--json"],
    env: { PORTREEVE_SOCKET: socket },
    stdout: "piped",
    stderr: "piped",
  }).output();
  // From a clone in a temp folder, or with Deno from npx's cache, config rightly warns about
  // those paths; confined as it is, it can also see that no daemon listens there yet. Nothing
  // else may reach stderr.
  const lines = new TextDecoder().decode(output.stderr).split("\n");
  const listening = `portreeve-mcp config: Warning: nothing listens on ${socket} yet`;
  assert.ok(lines.some((line) => line.startsWith(listening)), lines.join("\n"));
  const stderr = lines.filter((line) =>
    line !== "" && !line.startsWith(listening) &&
    !/^portreeve-mcp config: Warning: .* lies in (npx's cache|a temporary folder)/.test(line)
  );
  assert.deepEqual(stderr, []);
  assert.equal(output.code, 0);
  const { config } = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(config.command, Deno.execPath());
  assert.deepEqual(config.args, [
    "run",
    ...confinedFlags(socket),
    entry,
    "serve",
    "--socket",
    socket,
  ]);
});

Deno.test("config: every host setup can write names the setup command for the same entry", () => {
  const asked = [
    "--label",
    "ci",
    "--toolset",
    "read",
    "--approval",
    "auto",
    "--socket",
    "/s/p.sock",
  ];
  for (const profile of HOST_PROFILES) {
    for (const portable of [[], ["--portable"]]) {
      const result = run(["--host", profile.id, ...asked, ...portable]);
      assert.equal(result.code, 0, profile.id);
      const line = result.stdout.match(
        /Or let setup write it: `cd \S+ && deno task setup ([^`]*)`/,
      );
      if (profile.entry === null) {
        assert.equal(line, null, `${profile.id}: setup cannot locate its entry`);
        continue;
      }
      assert.ok(line !== null, `${profile.id}: no setup command in\n${result.stdout}`);
      const words = line[1].split(" ");
      const values = parseOptions(words, SETUP_OPTIONS, "setup --help");
      assert.deepEqual(
        { ...values },
        {
          host: profile.id,
          label: "ci",
          toolset: "read",
          approval: "auto",
          socket: "/s/p.sock",
          ...(portable.length > 0 ? { portable: true } : {}),
        },
        `${profile.id}: setup would write a different entry than config printed`,
      );
    }
  }
  const compiled = run(["--host", "cursor"], HOME_ONLY, {
    installation: COMPILED,
    socketGranted: () => true, // as when built for this socket
  });
  assert.equal(compiled.code, 0);
  assert.doesNotMatch(compiled.stdout, /setup/, "a compiled binary's grant cannot run setup");
});
