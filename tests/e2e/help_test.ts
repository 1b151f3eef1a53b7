/**
 * Every command explains itself: `--help` exits 0 and lists each flag the command accepts
 * (taken from the same option tables its parser uses) and its exit codes; every task in
 * deno.json has a description.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { SERVE_OPTIONS } from "../../src/cli/serve.ts";
import { CONFIG_OPTIONS } from "../../src/cli/config.ts";
import { DOCTOR_OPTIONS } from "../../src/cli/doctor.ts";
import { confinedFlags } from "../../src/permissions.ts";
import { SOURCE_ENTRY } from "./harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function help(args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `${args.join(" ")}: ${stderr}`);
  return new TextDecoder().decode(out.stdout);
}

const confined = ["run", ...confinedFlags("/tmp/prmcp-help/portreeve.sock"), SOURCE_ENTRY];
const COMMANDS: [string, string[], Record<string, unknown>][] = [
  ["serve", [...confined, "serve", "--help"], SERVE_OPTIONS],
  ["config", [...confined, "config", "--help"], CONFIG_OPTIONS],
  ["doctor", [...confined, "doctor", "--help"], DOCTOR_OPTIONS],
];

for (const [name, args, options] of COMMANDS) {
  Deno.test(`help: ${name} --help lists every flag and the exit codes`, async () => {
    const text = await help(args);
    for (const flag of Object.keys(options)) {
      assert.match(text, new RegExp(`--${flag}\\b`), `${name} --help names --${flag}`);
    }
    assert.match(text, /Exit codes: 0 /);
  });
}

Deno.test("help: the program's help names every command, doctor --json and the exit codes", async () => {
  const text = await help([...confined, "--help"]);
  for (const word of ["serve", "config", "doctor", "--json", "--portable", "Exit codes"]) {
    assert.ok(text.includes(word), word);
  }
});

Deno.test("help: the simulator, the installer and the release build explain themselves", async () => {
  const simulator = await help(["task", "-q", "simulator", "--help"]);
  for (const flag of ["--socket", "--seed-demo", "--help", "Exit codes"]) {
    assert.ok(simulator.includes(flag), `simulator: ${flag}`);
  }
  const install = await help(["task", "-q", "install", "--help"]);
  for (
    const word of ["--force", "manifest", "PORTREEVE_MCP_INSTALL_ROOT", "uninstall", "Exit codes"]
  ) {
    assert.ok(install.includes(word), `install: ${word}`);
  }
  const release = await help(["task", "-q", "release:local", "--help"]);
  for (const word of ["--target", "linux-x64", "darwin-arm64", "--out", "Exit codes"]) {
    assert.ok(release.includes(word), `release:local: ${word}`);
  }
});

Deno.test("help: every deno.json task has a description", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as {
    tasks: Record<string, unknown>;
  };
  for (const [name, task] of Object.entries(config.tasks)) {
    const described = typeof task === "object" && task !== null && "description" in task &&
      typeof task.description === "string" && task.description.length > 10;
    assert.ok(described, `task ${name} has a description`);
    const command = (task as { command?: unknown }).command;
    assert.ok(
      typeof command === "string" && command.startsWith("export DENO_NO_UPDATE_CHECK=1 && "),
      `task ${name} turns Deno's update check off`,
    );
  }
});

const SERVE_BY_HAND = [...confined, "serve", "--socket", "/tmp/prmcp-help/portreeve.sock"];

Deno.test("serve on a terminal says, in one stderr line, that it waits for a host", async () => {
  // `script` gives serve a pseudo-terminal; Ctrl-D on it is end of input.
  const line = [Deno.execPath(), ...SERVE_BY_HAND].map((w) => `'${w}'`).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", line, "/dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + 10_000;
  while (!seen.includes("Ctrl-C") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  await writer.write(new TextEncoder().encode("\x04"));
  await writer.close().catch(() => {});
  const status = await child.status;
  await reader.cancel().catch(() => {});
  await child.stderr.cancel().catch(() => {});
  const hints = seen.split(/\r?\n/).filter((l) => l.includes("waiting for an MCP host on stdin"));
  assert.equal(hints.length, 1, seen);
  assert.match(hints[0], /Press Ctrl-C to stop\./);
  assert.equal(status.code, 0);
});

Deno.test("serve with stdin on a pipe prints no terminal hint", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: SERVE_BY_HAND,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0);
  assert.doesNotMatch(new TextDecoder().decode(out.stderr), /waiting for an MCP host/);
});
