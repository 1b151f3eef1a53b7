/**
 * What each deno.json task runs, defined once. deno.json gives every task its description and
 * runs it as `deno run … scripts/task.ts NAME`; `deno task NAME ARGS…` appends ARGS to that
 * command, so the runner sees `--help` before anything runs (a task written as a chain such as
 * `a && b` would hand the arguments to `b` after `a` had already run). A test keeps this table
 * and deno.json in step: the same names, and every command going through the runner.
 */

import { bundleArgs } from "../src/cli/install/tree.ts";
import { SOCKET_ENV_VARS } from "../src/shared/socket_location.ts";
import { OWN_PROCESS } from "../tests/unit/own_process.ts";
import { E2E_GROUPS } from "../tests/e2e/groups.ts";

/** One thing a task does, in order; a step that fails ends the task with its exit code. */
export type Step =
  /** The running Deno with these arguments. */
  | { deno: readonly string[] }
  /** Another task's steps. */
  | { task: string }
  /** Removes a path and everything under it, as `rm -rf` does. */
  | { remove: string };

export interface TaskDefinition {
  /** What may follow `deno task NAME`, for the usage line. */
  args: string;
  /**
   * Where `--help` comes from. "command": the task's one step is a program that prints its own
   * help when `--help` is among its arguments. Otherwise these sentences say what the extra
   * arguments do, and the help lists the steps.
   */
  help: "command" | string;
  steps: readonly Step[];
}

/** The `confined` task's command: the bridge run or compiled under its confinement flags. */
const CONFINED = [
  "run",
  `--allow-env=${SOCKET_ENV_VARS.join(",")}`,
  // Its own user id, to refuse a socket in a folder of another user (socket_site.ts).
  "--allow-sys=uid",
  "--allow-run",
  "--allow-read",
  "--quiet",
  "scripts/confined.ts",
];

/** Files, environment and subprocesses: what the install, release and demo programs use. */
const LOCAL = ["--allow-read", "--allow-write", "--allow-env", "--allow-run"];

/** What `deno test` may do in every suite (each test confines the processes it starts). */
export const TEST_PERMISSIONS = [...LOCAL, "--allow-net", "--no-prompt"];

const TEST_ARGS = "Extra arguments go to `deno test` after the folders (e.g. --filter NAME).";

/** A task whose one step runs a program (with these permissions) that answers --help itself. */
function program(args: string, run: readonly string[]): TaskDefinition {
  return { args, help: "command", steps: [{ deno: ["run", ...run] }] };
}

/** A command of main.ts run confined, as a host runs it. */
function confined(args: string, command: string): TaskDefinition {
  return { args, help: "command", steps: [{ deno: [...CONFINED, "run", "main.ts", command] }] };
}

/**
 * Bundle first (the e2e suites run the bundle), then these test folders and files. Types are
 * `check`'s job (it checks every file of the repository), so the suites only run. `parallel`
 * runs test files side by side, one per core (each file makes its own temporary world); the
 * load scenarios run alone, since what they measure (renewal timing, memory) is what a
 * neighbour would disturb.
 */
function suite(folders: string[], { parallel }: { parallel: boolean }): TaskDefinition {
  const side = parallel ? ["--parallel"] : [];
  return {
    args: "[deno test arguments...]",
    help: TEST_ARGS,
    steps: [{ task: "bundle" }, {
      deno: ["test", ...TEST_PERMISSIONS, "--no-check", ...side, ...folders],
    }],
  };
}

export const TASKS: Readonly<Record<string, TaskDefinition>> = {
  confined: {
    args: "run ENTRY [ARGS...] | compile ENTRY OUTPUT",
    help: "command",
    steps: [{ deno: CONFINED }],
  },
  serve: confined("[options]", "serve"),
  config: confined("--host HOST [options]", "config"),
  doctor: confined("[options]", "doctor"),
  setup: confined("--host HOST [options]", "setup"),
  simulator: program("--socket PATH [options]", ["-A", "--quiet", "scripts/simulator.ts"]),
  demo: program("", [...LOCAL, "--allow-net", "--quiet", "scripts/demo.ts"]),
  install: program("[--force]", [...LOCAL, "--quiet", "src/cli/install.ts", "install"]),
  uninstall: program("", [
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--quiet",
    "src/cli/install.ts",
    "uninstall",
  ]),
  "release:local": program("[--target TARGET] [--out DIR]", [
    ...LOCAL,
    "--quiet",
    "scripts/release.ts",
  ]),
  "package:npm": program("[--out DIR] [--repository URL]", [
    ...LOCAL,
    "--quiet",
    "scripts/npm_package.ts",
  ]),
  bundle: {
    args: "",
    help: "Takes no arguments. Replaces dist/ with main.js and its chunks.",
    steps: [{ remove: "dist" }, { deno: bundleArgs("dist", "main.ts") }],
  },
  "serve:bundle": {
    args: "[serve options]",
    help: "Takes the options of serve (the serve task's --help lists them).",
    steps: [{ task: "bundle" }, { deno: [...CONFINED, "run", "dist/main.js", "serve"] }],
  },
  compile: {
    args: "[--socket PATH]",
    help: "--socket PATH fixes the binary's grant to that socket (else PORTREEVE_SOCKET, else " +
      "the default). Needs network access to dl.deno.land for denort.",
    steps: [{ deno: [...CONFINED, "compile", "main.ts", "dist/portreeve-mcp"] }],
  },
  check: {
    args: "[deno check arguments...]",
    help: "Extra arguments go to `deno check`.",
    steps: [
      { deno: ["fmt", "--check"] },
      { deno: ["lint"] },
      { deno: ["check", "main.ts", "src/", "tests/", "scripts/"] },
    ],
  },
  // The unit tests as one module (tests/unit/suite.ts), the end-to-end files in a few modules
  // (tests/e2e/groups.ts), and the files that need a runtime of their own.
  test: suite(["tests/unit/suite.ts", ...E2E_GROUPS, ...Object.keys(OWN_PROCESS)], {
    parallel: true,
  }),
  "test:live": {
    args: "[deno test arguments...]",
    help: `${TEST_ARGS} Set PORTREEVE_LIVE_SOCKET to the socket of a real daemon.`,
    steps: [{ deno: ["test", ...TEST_PERMISSIONS, "tests/live"] }],
  },
  bench: {
    args: "",
    help: "Takes no arguments (BENCH_TEST_SUITE=0 keeps the last timing of the test command). " +
      "Prints a table of ratios and writes docs/performance.json, docs/performance.md and the " +
      "README's figures; never fails on a time.",
    steps: [{ task: "bundle" }, { deno: ["run", "-A", "--quiet", "scripts/bench.ts"] }],
  },
  gen: {
    args: "",
    help: "Takes no arguments. Rewrites the generated files; commit them.",
    steps: [
      {
        deno: [
          "run",
          "--allow-read",
          // The budgets' session figures: the simulator's socket, in a folder of dist/.
          "--allow-net",
          "--allow-write=README.md,CONTRIBUTING.md,src/catalogue/tools_list.json,docs,dist,/tmp",
          "scripts/gen.ts",
        ],
      },
      { deno: ["fmt", "-q", "README.md", "CONTRIBUTING.md", "docs"] },
    ],
  },
  "test:reliability": suite(["tests/reliability/"], { parallel: true }),
  "test:load": suite(["tests/load/"], { parallel: false }),
  "test:hosts": suite(["tests/hosts/"], { parallel: false }),
};

/**
 * The command deno.json gives task `name`: the runner, with only the permissions it needs
 * (start Deno; remove dist/ for the bundle task).
 */
export function runnerCommand(name: string): string {
  return `export DENO_NO_UPDATE_CHECK=1 && deno run --allow-run --allow-write=dist --quiet ` +
    `scripts/task.ts ${name}`;
}
