/**
 * The commands the README and docs/ print run as printed on a fresh machine with only Node and
 * npm. Every fence names its language; each line of a `sh` fence is one of:
 * - a task through `npx -y deno@2.9.6` (never a bare `deno`, which such a machine lacks): the
 *   task exists, and every flag it passes is one the program accepts;
 * - the installed launcher (`~/.deno/bin/portreeve-mcp`), a release folder's
 *   (`~/opt/portreeve-mcp-<target>/bin/portreeve-mcp`, a real target), the npm package's on PATH
 *   (`portreeve-mcp`, after `npm install -g @portreeve/mcp`) or npx's (`npx -y @portreeve/mcp`):
 *   a real subcommand whose flags parse with the program's own parser, and whose host, toolset,
 *   approval mode and label are ones it accepts;
 * - one of the few system commands the release archive and the npm package need, on an archive
 *   of a real target.
 * Inline `deno task NAME` mentions must name real tasks.
 */
import assert from "node:assert/strict";
import { SERVE_OPTIONS } from "../../../src/cli/serve.ts";
import { CONFIG_OPTIONS } from "../../../src/cli/config.ts";
import { DOCTOR_OPTIONS } from "../../../src/cli/doctor.ts";
import { SETUP_OPTIONS } from "../../../src/cli/setup.ts";
import { checkLabel, oneOf, parseOptions, UsageError } from "../../../src/cli/options.ts";
import { HOST_IDS } from "../../../src/profiles/hosts.ts";
import { APPROVAL_MODES, SOFTWARE_VERSION, TOOLSETS } from "../../../src/shared/options.ts";
import { LAUNCHER_NAME, NPM_PACKAGE } from "../../../src/shared/install_layout.ts";
import { TARGETS } from "../../../scripts/release.ts";
import config from "../../../deno.json" with { type: "json" };
import { documents, fences, words } from "../../support/doc_fences.ts";
import server from "../../../server.json" with { type: "json" };

/** The repository the project names (server.json, the MCP Registry's listing), cloned as is. */
const REPOSITORY = server.repository.url;
const CHECKOUT = REPOSITORY.split("/").at(-1)!;

const TASKS = Object.keys(config.tasks);
const NPX_DENO = "npx -y deno@2.9.6";
const TARGET = `(?:${Object.keys(TARGETS).join("|")})`;
const ARCHIVE = `${LAUNCHER_NAME}-${TARGET}\\.tar\\.gz`;
/**
 * The installed launcher, a release folder's unpacked anywhere under the home folder, the npm
 * package's on PATH, and npx's.
 */
const LAUNCHER = new RegExp(
  `^(?:(?:~/\\.deno|~/[\\w./-]*${LAUNCHER_NAME}-${TARGET})/bin/${LAUNCHER_NAME}|${LAUNCHER_NAME}|` +
    `npx -y ${NPM_PACKAGE})(?: |$)`,
);
/**
 * System commands the release archive needs, and a host's own check that shows the server
 * connected, exactly as they may be printed.
 */
const SYSTEM = [
  new RegExp(`^sha256sum -c ${ARCHIVE}\\.sha256$`),
  new RegExp(`^tar -xzf ${ARCHIVE} -C ~/[\\w./-]+$`),
  /^mkdir -p ~\/[\w./-]+$/,
  /^cd dist$/,
  new RegExp(`^git clone ${REPOSITORY.replaceAll(".", "\\.")}\\.git$`),
  new RegExp(`^cd ${CHECKOUT}$`),
  /^(claude|codex|gemini) mcp list$/,
  new RegExp(`^npm install -g ${NPM_PACKAGE}$`),
  // The tarball `deno task package:npm` packs, of this version.
  new RegExp(
    `^npm install -g \\./dist/npm/portreeve-mcp-${SOFTWARE_VERSION.replaceAll(".", "\\.")}\\.tgz$`,
  ),
];

/** The parser options of each launcher subcommand. */
const COMMAND_OPTIONS = {
  serve: SERVE_OPTIONS,
  config: CONFIG_OPTIONS,
  doctor: DOCTOR_OPTIONS,
  setup: SETUP_OPTIONS,
};
type Command = keyof typeof COMMAND_OPTIONS;
const isCommand = (name: string): name is Command => Object.hasOwn(COMMAND_OPTIONS, name);
/** Flags of the tasks whose programs parse their own (read from each program's usage). */
const TASK_FLAGS: Record<string, string[]> = {
  simulator: ["socket", "seed-demo", "hostile", "latency", "serial", "help"],
  install: ["force", "help"],
  "release:local": ["target", "out", "help"],
  uninstall: ["help"],
};

/** Why the values a launcher subcommand is given would be refused; empty when they parse. */
function launcherProblems(name: string, args: string[]): string[] {
  if (name === "--version" || name === "--help") {
    return args.length ? [`${name} takes no more`] : [];
  }
  if (!isCommand(name)) return [`no command "${name}"`];
  try {
    const values: Record<string, unknown> = parseOptions(
      args,
      COMMAND_OPTIONS[name],
      `${name} --help`,
    );
    const text = (key: string) => typeof values[key] === "string" ? values[key] : undefined;
    if (text("host") !== undefined) oneOf(text("host")!, HOST_IDS, "--host");
    if (text("toolset") !== undefined) oneOf(text("toolset")!, TOOLSETS, "--toolset");
    if (text("approval") !== undefined) oneOf(text("approval")!, APPROVAL_MODES, "--approval");
    if (text("label") !== undefined) checkLabel(text("label")!);
    if (name === "config" && text("host") === undefined) return ["config needs --host"];
    return [];
  } catch (error) {
    if (error instanceof UsageError) return [error.message];
    throw error;
  }
}

/** Problems with one command line; empty when it runs as printed. */
export function problems(line: string): string[] {
  let command = line.replace(/\s#\s.*$/, "").replace(/&\s*$/, "").trim();
  if (command === "" || command.startsWith("#")) return [];
  command = command.replace(/^(?:[A-Z_][A-Z0-9_]*=\S+\s+)+/, "");
  if (SYSTEM.some((form) => form.test(command))) return [];
  const launcher = command.match(LAUNCHER);
  if (launcher) {
    const [name = "", ...args] = words(command.slice(launcher[0].length));
    return name === "" ? ["the launcher needs a command"] : launcherProblems(name, args);
  }
  if (!command.startsWith(`${NPX_DENO} task `)) {
    return [`not runnable on a fresh machine: ${command}`];
  }
  const [name, ...args] = words(command.slice(`${NPX_DENO} task `.length));
  if (!TASKS.includes(name)) return [`no task "${name}"`];
  if (isCommand(name)) return launcherProblems(name, args);
  const allowed = TASK_FLAGS[name];
  if (allowed === undefined) return args.length ? [`${name} takes no arguments`] : [];
  const flags = args.filter((word) => word.startsWith("--")).map((word) =>
    word.slice(2).split("=")[0]
  );
  const asksHelp = flags.includes("help");
  return [
    ...flags.filter((flag) => !allowed.includes(flag)).map((flag) => `${name} has no --${flag}`),
    ...(REQUIRED_FLAGS[name] ?? []).filter((flag) => !asksHelp && !flags.includes(flag))
      .map((flag) => `${name} needs --${flag}`),
  ];
}

/** Flags a task's program refuses to run without. */
const REQUIRED_FLAGS: Record<string, string[]> = { simulator: ["socket"] };

/**
 * A command written inline (in backticks) for a person to type, in the form the fence check
 * reads: `deno task …` stands for the npx form; a synopsis keeps its placeholders (`PATH`, `MS`),
 * which parse as values. Elided commands (`…`) are left alone.
 */
export function inlineCommands(text: string): string[] {
  return [...text.matchAll(/`((?:npx -y deno@2\.9\.6 |deno )task [a-z:]+(?: [^`]*)?)`/g)]
    .map((match) => match[1])
    .filter((command) => !command.includes("…"))
    .map((command) => command.replace(/^deno task /, `${NPX_DENO} task `));
}

const docs = await documents();

Deno.test("docs: every fence names its language (sh for commands, text for the rest)", () => {
  const bare = [...docs].flatMap(([file, text]) =>
    fences(text).filter((fence) => fence.language === "").map(() => file)
  );
  assert.deepEqual(bare, []);
});

Deno.test("docs: every shell command runs as printed and names real tasks, commands and values", () => {
  const found: string[] = [];
  let count = 0;
  for (const [file, text] of docs) {
    for (const fence of fences(text).filter((f) => f.language === "sh")) {
      for (const line of fence.lines) {
        count++;
        for (const why of problems(line)) found.push(`${file}: ${why}  ← ${line.trim()}`);
      }
    }
  }
  assert.ok(count >= 10, `the docs have shell commands (${count})`);
  assert.deepEqual(found, []);
});

Deno.test("docs: the README's quick start installs, sets up the entry, and ends connected", () => {
  const readme = docs.get("README.md")!;
  const from = readme.indexOf("## Quick start");
  const quick = readme.slice(from, readme.indexOf("\n## ", from));
  const commands = fences(quick).filter((fence) => fence.language === "sh")
    .flatMap((fence) => fence.lines.map((line) => line.replace(/\s#.*$/, "").trim()));
  // The npm package first (issue 29), packed from a checkout until a release publishes it.
  assert.deepEqual(commands, [
    `git clone ${REPOSITORY}.git`,
    `cd ${CHECKOUT}`,
    `${NPX_DENO} task package:npm`,
    `npm install -g ./dist/npm/portreeve-mcp-${SOFTWARE_VERSION}.tgz`,
    "portreeve-mcp setup --host claude",
    "claude mcp list",
  ]);
  assert.match(
    quick,
    /claude mcp list +# portreeve: … - ✔ Connected/,
    "what connected looks like",
  );
  assert.ok(readme.indexOf("## Quick start") < readme.indexOf("<!-- bench-summary:start -->"));
  // Under the title: the CI status and the licence, then one sentence of what, one of why.
  const [badges, ...prose] = readme.slice(
    readme.indexOf("\n\n") + 2,
    readme.indexOf("## Quick start"),
  )
    .trim().split("\n\n");
  assert.equal(
    badges.replace(/\s+/g, " "),
    `![CI status](${REPOSITORY}/actions/workflows/ci.yml/badge.svg) · [MIT licence](LICENSE)`,
    "this repository's CI status (.github/workflows/ci.yml) and the licence",
  );
  const sentences = prose.join(" ").split(/(?<=\.)\s/);
  assert.equal(sentences.length, 2, `what it is, and why: ${sentences.join(" | ")}`);
  assert.match(sentences[1], /^Why: [\s\S]*\bparallel\b[\s\S]*\bcollide\b/);
  // The npm registry is named with when it has the package: from the first release on.
  assert.match(
    quick,
    /published from the first release on; until then\s+`npm install -g[^`]*`\s+answers 404/,
  );
});

Deno.test("docs: an archive's checksum is checked where the archive is", () => {
  for (const [file, text] of docs) {
    for (const fence of fences(text).filter((f) => f.language === "sh")) {
      const at = fence.lines.findIndex((line) => line.startsWith("sha256sum -c"));
      if (at === -1) continue;
      assert.ok(fence.lines.slice(0, at).some((line) => /^cd \S+/.test(line)), `${file}: cd first`);
    }
  }
});

Deno.test("docs: inline task commands run as written (every flag known, none missing)", () => {
  const found: string[] = [];
  let count = 0;
  for (const [file, text] of docs) {
    for (const command of inlineCommands(text)) {
      count++;
      for (const why of problems(command)) found.push(`${file}: ${why}  ← ${command}`);
    }
  }
  assert.ok(count > 5, `${count} inline commands`);
  assert.deepEqual(found, []);
});

Deno.test("docs: inline `deno task NAME` mentions name tasks that exist", () => {
  let count = 0;
  for (const [file, text] of docs) {
    for (const [, name] of text.matchAll(/`(?:npx -y deno@2\.9\.6 |deno )task ([a-z:]+)/g)) {
      count++;
      assert.ok(TASKS.includes(name), `${file}: task ${name}`);
    }
  }
  assert.ok(count > 5);
});

Deno.test("docs check: what it must refuse, it refuses", () => {
  assert.equal(problems("deno task serve").length, 1);
  assert.equal(problems(`${NPX_DENO} task nosuch`).length, 1);
  assert.equal(problems(`${NPX_DENO} task config --host claude --nosuch`).length, 1);
  assert.equal(problems(`${NPX_DENO} task config --host atom`).length, 1);
  assert.equal(problems("~/.deno/bin/portreeve-mcp config --host claude --toolset most").length, 1);
  assert.equal(problems("~/.deno/bin/portreeve-mcp doctor --approval maybe").length, 1);
  assert.equal(problems("~/.deno/bin/portreeve-mcp config --host codex --label 'a b'").length, 1);
  assert.equal(problems("~/.deno/bin/portreeve-mcp config --json").length, 1);
  assert.equal(problems("~/.deno/bin/portreeve-mcp install").length, 1);
  assert.equal(problems("~/opt/portreeve-mcp-windows-x64/bin/portreeve-mcp --version").length, 1);
  assert.equal(problems("tar -xzf portreeve-mcp-linux-x64.tar.gz -C /opt").length, 1);
  assert.equal(problems("curl -fsSL https://example.com | sh").length, 1);
  assert.deepEqual(problems(`PORTREEVE_SOCKET=/s ${NPX_DENO} task serve --socket /s  # ok`), []);
  assert.deepEqual(problems("~/opt/portreeve-mcp-darwin-arm64/bin/portreeve-mcp doctor"), []);
  assert.deepEqual(problems("sha256sum -c portreeve-mcp-linux-arm64.tar.gz.sha256"), []);
  assert.deepEqual(problems(`${NPX_DENO} task simulator --hostile`), ["simulator needs --socket"]);
  assert.deepEqual(inlineCommands("try `deno task simulator --hostile` by hand"), [
    `${NPX_DENO} task simulator --hostile`,
  ]);
  assert.deepEqual(problems("npm install -g @portreeve/mcp"), []);
  assert.deepEqual(problems("portreeve-mcp config --host opencode"), []);
  assert.deepEqual(problems("npx -y @portreeve/mcp config --host claude"), []);
  assert.equal(problems("npm install -g portreeve").length, 1);
  assert.equal(problems("portreeve-mcp config --host atom").length, 1);
  assert.equal(problems("npx -y @portreeve/mcp install").length, 1);
});
