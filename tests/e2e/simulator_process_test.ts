/**
 * The simulator started as a program (`deno task simulator`) removes its socket and exits on
 * SIGINT and SIGTERM, and when the process that started it goes away (a killed `npx` or
 * `deno task` wrapper must not leave an orphan holding the socket). Every wait is for
 * something the programs say or do (a line on stderr, stderr closing), never for time.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { exists } from "../support/processes.ts";
import { alive } from "../support/raw_peer.ts";
import { childEnv } from "../../src/shared/permissions.ts";

const MAIN = fileURLToPath(new URL("../../scripts/simulator.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The simulator program serving `socket` (with `flags`), its stderr piped. */
function simulatorProgram(socket: string, flags: string[] = []) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "--socket", socket, ...flags],
    stdout: "null",
    stderr: "piped",
  });
}

/** Reads a child's stderr as it comes: `until` a pattern shows, or `end` (every writer gone). */
function stderrOf(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const more = async () => {
    const { value, done } = await reader.read();
    if (!done) text += value;
    return !done;
  };
  return {
    async until(pattern: RegExp): Promise<string> {
      while (!pattern.test(text)) {
        if (!(await more())) throw new Error(`stderr ended before ${pattern}: ${text}`);
      }
      return text;
    },
    async end(): Promise<string> {
      while (await more());
      return text;
    },
  };
}

const LISTENING = /listening on /;

Deno.test("simulator program: SIGINT removes the socket and exits 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simproc-" });
  const socket = `${dir}/portreeve.sock`;
  const child = simulatorProgram(socket).spawn();
  const stderr = stderrOf(child.stderr);
  try {
    await stderr.until(LISTENING);
    assert.ok(await exists(socket));
    child.kill("SIGINT");
    const status = await child.status;
    assert.equal(status.code, 0);
    assert.equal(await exists(socket), false, "socket removed");
  } finally {
    await stderr.end();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulator program: SIGTERM removes the socket and exits 0; the socket's missing folders are made with mode 0700; --latency and --serial say so, and report the queue at exit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simproc-" });
  const socket = `${dir}/state/portreeve/portreeve.sock`;
  const child = simulatorProgram(socket, ["--latency", "5", "--serial"]).spawn();
  const stderr = stderrOf(child.stderr);
  try {
    await stderr.until(LISTENING);
    assert.ok(await exists(socket));
    for (const folder of [`${dir}/state`, `${dir}/state/portreeve`]) {
      assert.equal((await Deno.stat(folder)).mode! & 0o777, 0o700, folder);
    }
    const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
    const reply = await fetch("http://[100::]/v1/health", { client });
    assert.equal(reply.status, 200);
    await reply.body?.cancel();
    client.close();
    child.kill("SIGTERM");
    const status = await child.status;
    assert.equal(status.code, 0);
    assert.equal(await exists(socket), false, "socket removed");
    const said = await stderr.end();
    assert.match(said, /5 ms per change, one request at a time/);
    assert.match(said, /SIMULATED daemon queue: \{"served":1,"peak":1\}/);
  } finally {
    await stderr.end();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulator program: exits and removes its socket when its parent dies", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simorphan-" });
  const socket = `${dir}/portreeve.sock`;
  // A wrapper shell starts the simulator in the background, says its pid, and waits.
  const script = `"$0" run -A --quiet "$1" --socket "$2" >/dev/null & echo $!; wait`;
  const wrapper = new Deno.Command("sh", {
    args: ["-c", script, Deno.execPath(), MAIN, socket],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = stderrOf(wrapper.stderr);
  const stdout = wrapper.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const pid = Number((await stdout.read()).value?.trim() || "0");
  await stdout.cancel();
  try {
    assert.ok(pid > 0, "the simulator's pid from the wrapper");
    await stderr.until(LISTENING);
    wrapper.kill("SIGKILL");
    await wrapper.status;
    await stderr.end(); // the orphan holds the wrapper's stderr until it exits
    assert.equal(await alive(pid), false, "the orphaned simulator exited");
    assert.equal(await exists(socket), false, "socket removed");
  } finally {
    if (pid > 0 && await alive(pid)) Deno.kill(pid, "SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulator task: a killed `deno task` leaves no simulator and no socket", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simtask-" });
  const socket = `${dir}/portreeve.sock`;
  const task = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "simulator", "--socket", socket, "--seed-demo"],
    cwd: ROOT,
    env: childEnv({ TMPDIR: dir }),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = stderrOf(task.stderr);
  try {
    const said = await stderr.until(/with demo data under (\S+)/);
    const demo = said.match(/with demo data under (\S+)/)![1];
    assert.ok(demo.startsWith(`${dir}/portreeve-sim-demo-`), demo);
    task.kill("SIGKILL"); // `deno task` itself: its children are not told
    await task.status;
    await stderr.end(); // every process of the chain has let go of stderr: all have exited
    assert.equal(await exists(socket), false, "socket removed");
    assert.equal(await exists(demo), false, "demo data removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Runs the simulator to its exit; returns the code and what it wrote to stderr. */
async function refusal(socket: string): Promise<{ code: number; stderr: string }> {
  const out = await simulatorProgram(socket).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("simulator program: a path it cannot use is one line and exit 2, never a stack trace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simrefuse-" });
  const listener = Deno.listen({ transport: "unix", path: `${dir}/live.sock` });
  try {
    await Deno.writeTextFile(`${dir}/file`, "not a folder");
    const cases: [string, RegExp][] = [
      [`${dir}/file/portreeve.sock`, /^simulator: cannot create the folder of /],
      [`${dir}/file`, /exists and is not a socket/],
      // A live socket may be a real daemon's: it is never taken over.
      [`${dir}/live.sock`, /something already listens on/],
      [
        `${dir}/${"x".repeat(120)}.sock`,
        /^simulator: --socket is \d+ bytes, too long for a Unix socket/,
      ],
    ];
    const answers = await Promise.all(cases.map(([socket]) => refusal(socket)));
    for (const [index, [socket, expected]] of cases.entries()) {
      const { code, stderr } = answers[index];
      assert.equal(code, 2, `${socket}: ${stderr}`);
      assert.match(stderr, expected);
      assert.equal(stderr.trimEnd().split("\n").length, 1, `one line: ${stderr}`);
      assert.doesNotMatch(stderr, /\n\s+at |error: Uncaught/, "no stack trace");
    }
    assert.equal(await Deno.readTextFile(`${dir}/file`), "not a folder", "the file is untouched");
    assert.ok((await Deno.lstat(`${dir}/live.sock`)).isSocket, "the live socket is untouched");
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulator program: --latency must be whole milliseconds (exit 2)", async () => {
  const outs = await Promise.all(
    ["abc", "1.5", "600001"].map((bad) =>
      simulatorProgram("/tmp/never.sock", ["--latency", bad]).output()
    ),
  );
  for (const out of outs) {
    assert.equal(out.code, 2);
    assert.match(new TextDecoder().decode(out.stderr), /--latency must be whole milliseconds/);
  }
});
