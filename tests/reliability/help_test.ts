/**
 * Every command explains itself: `--help` exits 0 and lists each flag the command accepts
 * (taken from the same option tables its parser uses) and its exit codes; every task in
 * deno.json has a description and answers `--help` with it without doing its work; host lists
 * in help texts and task descriptions are the profiles' hosts.
 */
import { denoFinished } from "../support/processes.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { SERVE_OPTIONS } from "../../src/cli/serve.ts";
import { CONFIG_OPTIONS } from "../../src/cli/config.ts";
import { DOCTOR_OPTIONS } from "../../src/cli/doctor.ts";
import { confinedFlags } from "../../src/shared/permissions.ts";
import { SOURCE_ENTRY } from "../e2e/harness.ts";
import { CONFIG_HELP } from "../../src/cli/config.ts";
import { DOCTOR_HELP } from "../../src/cli/doctor.ts";
import { programHelp } from "../../src/cli/main.ts";
import { HOST_IDS } from "../../src/profiles/mod.ts";
import { runnerCommand, TASKS } from "../../scripts/tasks.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function help(args: string[]): Promise<string> {
  const out = await denoFinished(args, { cwd: ROOT, stdin: "null" });
  assert.equal(out.code, 0, `${args.join(" ")}: ${out.stderr}`);
  return out.stdout;
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

for (const [name, args] of COMMANDS.filter(([, , options]) => "host" in options)) {
  Deno.test(`help: ${name} refuses an unknown --host: exit 2, one line naming the hosts`, async () => {
    const out = await denoFinished([...args.slice(0, -1), "--host", "atom"], {
      cwd: ROOT,
      stdin: "null",
    });
    const stderr = out.stderr;
    assert.equal(out.code, 2, stderr);
    assert.equal(out.stdout, "");
    assert.match(stderr, /^[^\n]*"atom"[^\n]*\n$/, "one line naming the host given");
    for (const id of HOST_IDS) assert.match(stderr, new RegExp(`\\b${id}\\b`), `names ${id}`);
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
  while (!seen.includes("Ctrl-C")) {
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

/** Every file and folder under `dir` (but .git) with its size and modification time. */
async function snapshot(
  dir: string,
  into = new Map<string, string>(),
): Promise<Map<string, string>> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name === ".git") continue;
    const path = `${dir}/${entry.name}`;
    const info = await Deno.lstat(path);
    into.set(path, `${info.isDirectory ? "dir" : info.size} ${info.mtime?.getTime()}`);
    if (info.isDirectory) await snapshot(path, into);
  }
  return into;
}

const TASK_DESCRIPTIONS = (JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as {
  tasks: Record<string, { description: string }>;
}).tasks;

Deno.test("help: every task answers --help with its description and does none of its work", async () => {
  // In this checkout (its module cache warm), with the socket, install root, state and
  // temporary folders in a folder of their own: whatever a task would write or create, there
  // or in the checkout, shows up in the snapshots.
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-task-help-" }));
  const checkout = ROOT.replace(/\/$/, "");
  for (const folder of ["state", "tmp", "install"]) await Deno.mkdir(`${work}/${folder}`);
  const env = {
    ...Deno.env.toObject(),
    PORTREEVE_SOCKET: `${work}/state/portreeve.sock`,
    PORTREEVE_MCP_INSTALL_ROOT: `${work}/install`,
    XDG_STATE_HOME: `${work}/state`,
    TMPDIR: `${work}/tmp`,
  };
  try {
    const before = [await snapshot(work), await snapshot(checkout)];
    // The tasks whose program answers --help itself; the runner's own answer for the others
    // is printed and checked in-process (tests/unit/repo/tasks_test.ts).
    const names = Object.keys(TASK_DESCRIPTIONS).filter((name) => TASKS[name].help === "command");
    // What `deno task NAME --help` runs (tests/unit/repo/tasks_test.ts holds deno.json to
    // runnerCommand), without one more Deno in between for each task.
    const runner = (name: string) =>
      runnerCommand(name).replace(/^export DENO_NO_UPDATE_CHECK=1 && deno /, "").split(" ");
    const answers = await Promise.all(names.map(async (name) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [...runner(name), "--help"],
        cwd: checkout,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { name, out, stdout: new TextDecoder().decode(out.stdout) };
    }));
    for (const { name, out, stdout } of answers) {
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `${name} --help: ${stdout}${stderr}`);
      assert.equal(stderr, "", `${name} --help writes nothing on stderr`);
      assert.ok(stdout.includes(TASK_DESCRIPTIONS[name].description), `${name}: its description`);
      assert.match(stdout, /usage: /, `${name}: a usage line`);
      // What the test, check, demo and simulator tasks print once they are at work.
      const working = /running \d+ tests?|Checked \d+ files?|simulator socket|listening on/;
      assert.doesNotMatch(stdout + stderr, working, name);
    }
    assert.deepEqual(
      [[...(await snapshot(work)).entries()], [...(await snapshot(checkout)).entries()]],
      before.map((taken) => [...taken.entries()]),
      "nothing written",
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("help: host lists in help texts and task descriptions are the profiles' hosts", () => {
  const texts: [string, string][] = [
    ["config --help", CONFIG_HELP],
    ["doctor --help", DOCTOR_HELP],
    ["--help", programHelp(HOST_IDS)],
    ...Object.entries(TASK_DESCRIPTIONS).map(([name, task]): [string, string] => [
      `task ${name}`,
      task.description,
    ]),
  ];
  let lists = 0;
  for (const [where, text] of texts) {
    const named = HOST_IDS.filter((id) => new RegExp(`\\b${id}\\b`).test(text));
    if (named.length === 0) continue;
    lists++;
    assert.deepEqual(named, HOST_IDS, `${where} names every host (${HOST_IDS.join(", ")})`);
  }
  assert.ok(lists >= 4, "config, doctor, the program and the config task name hosts");
});
