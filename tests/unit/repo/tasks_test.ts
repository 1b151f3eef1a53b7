/**
 * deno.json and scripts/tasks.ts describe the same tasks, every task goes through the runner
 * (so `--help` is seen before anything runs), and the runner does nothing but print for
 * `--help`, and otherwise runs the steps in order with the extra arguments on the last.
 */
import assert from "node:assert/strict";
import { runnerCommand, type Step, TASKS } from "../../../scripts/tasks.ts";
import { OWN_PROCESS } from "../own_process.ts";
import { E2E_GROUPS } from "../../e2e/groups.ts";
import { type Effects, runTask, wantsHelp } from "../../../scripts/task.ts";

const CONFIG = JSON.parse(
  await Deno.readTextFile(new URL("../../../deno.json", import.meta.url)),
) as { tasks: Record<string, { command: string; description: string }> };

/** Effects that record what would have been done; Deno "exits" with `codes` in turn. */
function recorder(codes: number[] = []) {
  const done: string[] = [];
  const printed: string[] = [];
  const effects: Effects = {
    deno: (args) => {
      done.push(`deno ${args.join(" ")}`);
      return Promise.resolve(codes.shift() ?? 0);
    },
    remove: (path) => {
      done.push(`remove ${path}`);
      return Promise.resolve();
    },
    print: (text) => printed.push(text),
  };
  return { done, printed, effects };
}

Deno.test("tasks: deno.json runs every task of the table, and only those, through the runner", () => {
  assert.deepEqual(Object.keys(CONFIG.tasks).sort(), Object.keys(TASKS).sort());
  for (const [name, task] of Object.entries(CONFIG.tasks)) {
    assert.equal(task.command, runnerCommand(name), `task ${name}`);
  }
});

Deno.test("tasks: a task that leaves --help to its program has one step; task steps exist", () => {
  const named = (step: Step) => "task" in step ? [step.task] : [];
  for (const [name, task] of Object.entries(TASKS)) {
    if (task.help === "command") assert.equal(task.steps.length, 1, name);
    for (const inner of task.steps.flatMap(named)) assert.ok(inner in TASKS, `${name}: ${inner}`);
  }
});

Deno.test("tasks: --help runs nothing, or only the program that answers it", async () => {
  for (const [name, task] of Object.entries(TASKS)) {
    for (const ask of [["--help"], ["-h"], ["--socket", "/s.sock", "--help"]]) {
      const { done, printed, effects } = recorder();
      assert.equal(await runTask(name, ask, effects), 0, name);
      const said = printed.join("\n");
      assert.ok(said.includes(CONFIG.tasks[name].description), `${name}: its description`);
      if (task.help !== "command") {
        assert.deepEqual(done, [], name);
        assert.match(said, /^usage: /m, `${name}: a usage line`);
        assert.ok(said.includes(task.help), `${name}: what its arguments do`);
        assert.match(said, /Runs, in order/, `${name}: what it runs`);
      } else {
        const [step] = task.steps;
        assert.ok("deno" in step);
        assert.deepEqual(done, [`deno ${[...step.deno, ...ask].join(" ")}`], name);
      }
    }
  }
  assert.equal(wantsHelp(["--filter", "x", "--", "--help"]), false, "after -- it is an argument");
});

Deno.test("tasks: steps run in order, extra arguments on the last, stopping at a failure", async () => {
  const test = recorder();
  assert.equal(await runTask("test", ["--filter", "x"], test.effects), 0);
  assert.equal(test.done.length, 3);
  assert.equal(test.done[0], "remove dist");
  assert.match(test.done[1], /^deno bundle .* main\.ts$/);
  assert.match(test.done[2], /^deno test .* tests\/unit\/suite.ts .*_test\.ts --filter x$/);

  const failing = recorder([0, 3]);
  assert.equal(await runTask("check", [], failing.effects), 3);
  assert.deepEqual(failing.done, ["deno fmt --check", "deno lint"], "check stops at lint");

  assert.equal(await runTask("nosuch", [], recorder().effects), 2);
});

Deno.test("tasks: a task that takes no arguments refuses them before any step runs", async () => {
  const none = Object.entries(TASKS).filter(([, task]) =>
    task.args === "" && task.help !== "command"
  );
  assert.ok(none.length >= 3, "bundle, gen and bench take none");
  for (const [name] of none) {
    const { done, effects } = recorder();
    assert.equal(await runTask(name, ["--typo"], effects), 2, name);
    assert.deepEqual(done, [], `${name}: nothing ran`);
  }
});

Deno.test("tasks: the test task runs the unit suite module, the files it leaves out, and e2e", async () => {
  const last = TASKS.test.steps.at(-1)!;
  assert.ok("deno" in last);
  const args = last.deno;
  assert.ok(args.includes("tests/unit/suite.ts"));
  for (const [file, why] of Object.entries(OWN_PROCESS)) {
    assert.ok(why.length > 20, `${file}: why it needs a runtime of its own`);
    assert.ok((await Deno.stat(new URL(`../../../${file}`, import.meta.url))).isFile, file);
    assert.ok(args.includes(file), `${file} runs on its own`);
  }
  // Every end-to-end file runs once: in exactly one group module, each of which the task runs
  // (and not the folder, which would run every file a second time).
  assert.ok(!args.some((arg) => arg.replace(/\/$/, "") === "tests/e2e"), "not the folder");
  const grouped = new Map<string, string[]>();
  for (const group of E2E_GROUPS) {
    assert.ok(args.includes(group), `${group} runs`);
    const text = await Deno.readTextFile(new URL(`../../../${group}`, import.meta.url));
    for (const [, file] of text.matchAll(/^import "\.\/([a-z_]+_test\.ts)";$/gm)) {
      grouped.set(file, [...grouped.get(file) ?? [], group]);
    }
  }
  const files = [];
  for await (const entry of Deno.readDir(new URL("../../e2e/", import.meta.url))) {
    if (entry.isFile && entry.name.endsWith("_test.ts")) files.push(entry.name);
  }
  assert.ok(files.length >= 10, `${files.length} end-to-end files`);
  for (const file of files.sort()) {
    assert.deepEqual(grouped.get(file)?.length, 1, `tests/e2e/${file} in one group of groups.ts`);
  }
  assert.deepEqual([...grouped.keys()].sort(), files.sort(), "groups import only test files");
});
