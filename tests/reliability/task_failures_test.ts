/**
 * No task shows a person a stack trace. Every task of deno.json is run as a person would
 * (`deno task NAME …`, in a copy of the checkout) down a path where it fails — a mistyped flag,
 * a missing value, a broken bridge under the demo — and must exit non-zero with what it says
 * free of stack frames, uncaught-error banners and Rust backtraces. It bundles and formats
 * several times over, so it lives in the reliability suite; the fast suite holds the runner's
 * refusals in-process (tests/unit/repo/tasks_test.ts).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { copyCheckout } from "../support/checkout.ts";
import { TASKS } from "../../scripts/tasks.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What a person must never be shown. */
const STACK_TRACE = /^\s+at .+(:\d+:\d+\)?|\(native\))$|error: Uncaught|Stack backtrace:/m;

/** Ways each task fails; every task of deno.json needs at least one. */
const FAILURES: Record<string, { args: string[]; env?: Record<string, string> }[]> = {
  confined: [{ args: ["bogus"] }],
  serve: [{ args: ["--bogus"] }, { args: ["--socket", "relative.sock"] }],
  config: [{ args: ["--bogus"] }, { args: [] }, { args: ["--host", "atom"] }],
  doctor: [{ args: ["--bogus"] }],
  setup: [{ args: ["--bogus"] }, { args: [] }, { args: ["--host", "atom"] }],
  simulator: [{ args: ["--bogus"] }, { args: [] }, { args: ["--socket", "/proc/nope/s.sock"] }],
  demo: [{ args: ["--bogus"] }],
  install: [{ args: ["--bogus"] }, { args: [], env: { PORTREEVE_MCP_INSTALL_ROOT: "relative" } }],
  uninstall: [{ args: ["--bogus"] }],
  "release:local": [{ args: ["--target", "windows-x64"] }],
  "package:npm": [{ args: ["--bogus"] }, { args: ["--out"] }],
  bundle: [{ args: ["--bogus"] }],
  "serve:bundle": [{ args: ["--bogus"] }],
  compile: [{ args: ["--bogus"] }],
  check: [{ args: ["--bogus"] }],
  test: [{ args: ["--bogus"] }],
  "test:live": [{ args: ["--bogus"] }],
  bench: [{ args: ["--bogus"] }],
  gen: [{ args: ["--bogus"] }],
  "test:reliability": [{ args: ["--bogus"] }],
  "test:load": [{ args: ["--bogus"] }],
  "test:hosts": [{ args: ["--bogus"] }],
};

/** The caller's environment as a person has it: no backtrace switch, no socket of ours. */
function personEnv(checkout: string, extra: Record<string, string> = {}): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of ["RUST_BACKTRACE", "PORTREEVE_SOCKET", "XDG_STATE_HOME"]) delete env[name];
  return { ...env, NO_COLOR: "1", PORTREEVE_MCP_INSTALL_ROOT: `${checkout}/../install`, ...extra };
}

async function runTask(checkout: string, name: string, args: string[], env = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", name, ...args],
    cwd: checkout,
    env: personEnv(checkout, env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, said: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

Deno.test("tasks: every failure path ends in words, never a stack trace", async () => {
  assert.deepEqual(Object.keys(FAILURES).sort(), Object.keys(TASKS).sort(), "every task");
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-task-fail-" }));
  const checkout = `${work}/checkout`;
  await copyCheckout(ROOT, checkout);
  try {
    const found: string[] = [];
    for (const [name, failures] of Object.entries(FAILURES)) {
      for (const { args, env } of failures) {
        const { code, said } = await runTask(checkout, name, args, env);
        const where = `deno task ${name} ${args.join(" ")}`;
        if (code === 0) found.push(`${where}: exited 0`);
        if (STACK_TRACE.test(said)) found.push(`${where}: a stack trace:\n${said}`);
      }
    }
    // The demo, when the bridge it starts cannot come up.
    await Deno.writeTextFile(`${checkout}/main.ts`, 'throw new Error("broken on purpose");\n');
    const demo = await runTask(checkout, "demo", []);
    if (demo.code === 0) found.push("demo with a broken bridge: exited 0");
    if (STACK_TRACE.test(demo.said)) found.push(`demo with a broken bridge:\n${demo.said}`);
    assert.match(demo.said, /^demo: .+\ndemo: nothing was left behind/m);
    assert.deepEqual(found, []);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("tasks: Ctrl-C on the demo leaves no temporary folder behind", async () => {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-demo-int-" }));
  try {
    // `deno task demo` as a terminal runs it; Ctrl-C reaches the runner, which passes it on.
    const demo = new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "demo"],
      cwd: ROOT,
      env: { ...personEnv(ROOT), TMPDIR: tmp },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = demo.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let said = "";
    while (!said.includes("simulator socket")) {
      const { value, done } = await reader.read();
      if (done) break;
      said += value;
    }
    assert.match(said, /simulator socket/);
    demo.kill("SIGINT");
    for (let next = await reader.read(); !next.done; next = await reader.read()) said += next.value;
    const stderr = await new Response(demo.stderr).text();
    await demo.status;
    assert.doesNotMatch(said + stderr, STACK_TRACE);
    assert.deepEqual([...Deno.readDirSync(tmp)].map((entry) => entry.name), [], "nothing left");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
