/**
 * The README's commands run as printed on a fresh machine with only Node and npm: each line of
 * a `sh` block is a task through `npx -y deno@2.9.6` (never a bare `deno`, which such a
 * machine lacks) or the installed launcher, every task it names exists, and every flag it
 * passes is one the command accepts. Inline `deno task NAME` mentions must name real tasks.
 */
import assert from "node:assert/strict";
import { SERVE_OPTIONS } from "../../../src/cli/serve.ts";
import { CONFIG_OPTIONS } from "../../../src/cli/config.ts";
import { DOCTOR_OPTIONS } from "../../../src/cli/doctor.ts";

const README = await Deno.readTextFile(new URL("../../../README.md", import.meta.url));
const TASKS = Object.keys(
  (JSON.parse(await Deno.readTextFile(new URL("../../../deno.json", import.meta.url))) as {
    tasks: Record<string, unknown>;
  }).tasks,
);

const NPX_DENO = "npx -y deno@2.9.6";
const LAUNCHER = "~/.deno/bin/portreeve-mcp";
/** Flags each command (task or launcher subcommand) accepts. */
const FLAGS: Record<string, string[]> = {
  serve: Object.keys(SERVE_OPTIONS),
  config: Object.keys(CONFIG_OPTIONS),
  doctor: Object.keys(DOCTOR_OPTIONS),
  simulator: ["socket", "seed-demo", "help"],
  install: ["force", "help"],
  "release:local": ["target", "out", "help"],
  uninstall: ["help"],
};

function shellLines(markdown: string): string[] {
  const lines: string[] = [];
  let inside = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) {
      inside = !inside && line.trim() === "```sh";
      continue;
    }
    if (inside) lines.push(line);
  }
  return lines;
}

/** Problems with one command line; empty when it runs as printed. */
export function problems(line: string): string[] {
  let command = line.replace(/\s#\s.*$/, "").replace(/&\s*$/, "").trim();
  if (command === "" || command.startsWith("#")) return [];
  command = command.replace(/^(?:[A-Z_][A-Z0-9_]*=\S+\s+)+/, "");
  let name: string;
  let rest: string[];
  if (command.startsWith(`${NPX_DENO} task `)) {
    [name, ...rest] = command.slice(`${NPX_DENO} task `.length).split(/\s+/);
    if (!TASKS.includes(name)) return [`no task "${name}"`];
  } else if (command.startsWith(`${LAUNCHER} `)) {
    [name, ...rest] = command.slice(`${LAUNCHER} `.length).split(/\s+/);
    if (!["serve", "config", "doctor"].includes(name)) return [`no command "${name}"`];
  } else {
    return [`not runnable on a fresh machine: ${command}`];
  }
  const allowed = FLAGS[name];
  if (allowed === undefined) return rest.length ? [`${name} takes no arguments`] : [];
  return rest.filter((word) => word.startsWith("--"))
    .map((word) => word.slice(2).split("=")[0])
    .filter((flag) => !allowed.includes(flag))
    .map((flag) => `${name} has no --${flag}`);
}

Deno.test("README: every shell command runs as printed and names real tasks and flags", () => {
  const lines = shellLines(README);
  assert.ok(lines.length >= 10, "the README has shell commands");
  const found = lines.flatMap((line) => problems(line).map((why) => `${why}  ← ${line.trim()}`));
  assert.deepEqual(found, []);
});

Deno.test("README: inline `deno task NAME` mentions name tasks that exist", () => {
  const mentions = [...README.matchAll(/`(?:npx -y deno@2\.9\.6 |deno )task ([a-z:]+)/g)];
  assert.ok(mentions.length > 5);
  for (const [, name] of mentions) assert.ok(TASKS.includes(name), `task ${name}`);
});

Deno.test("README check: a bare deno, an unknown task and an unknown flag are caught", () => {
  assert.equal(problems("deno task serve").length, 1);
  assert.equal(problems(`${NPX_DENO} task nosuch`).length, 1);
  assert.equal(problems(`${NPX_DENO} task config --host claude --nosuch`).length, 1);
  assert.deepEqual(problems(`PORTREEVE_SOCKET=/s ${NPX_DENO} task serve --socket /s  # ok`), []);
});
