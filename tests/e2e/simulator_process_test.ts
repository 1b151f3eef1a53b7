/**
 * The simulator started as a program (`deno task simulator`) removes its socket and exits on
 * SIGINT and SIGTERM, and when the process that started it goes away (a killed `npx` or
 * `deno task` wrapper must not leave an orphan holding the socket).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { exists, until } from "../support/processes.ts";

const MAIN = fileURLToPath(new URL("../../scripts/simulator.ts", import.meta.url));

/** The simulator program serving `socket` (with `flags`), its stderr piped. */
function simulatorProgram(socket: string, flags: string[] = [], signal?: AbortSignal) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "--socket", socket, ...flags],
    stdout: "null",
    stderr: "piped",
    signal,
  });
}

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`simulator program: ${signal} removes the socket and exits 0`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "prmcp-simproc-" });
    const socket = `${dir}/portreeve.sock`;
    const child = simulatorProgram(socket).spawn();
    try {
      await until("the socket exists", () => exists(socket));
      child.kill(signal);
      const status = await child.status;
      assert.equal(status.code, 0);
      assert.equal(await exists(socket), false, "socket removed");
    } finally {
      await child.stderr.cancel().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("simulator program: exits and removes its socket when its parent dies", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simorphan-" });
  const socket = `${dir}/portreeve.sock`;
  // A wrapper shell starts the simulator in the background, says its pid, and waits.
  const script = `"$0" run -A --quiet "$1" --socket "$2" >/dev/null 2>&1 & echo $!; wait`;
  const wrapper = new Deno.Command("sh", {
    args: ["-c", script, Deno.execPath(), MAIN, socket],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = wrapper.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pid = 0;
  try {
    const { value } = await reader.read();
    pid = Number(value?.trim());
    assert.ok(pid > 0, `simulator pid from the wrapper: ${value}`);
    await until("the socket exists", () => exists(socket));
    wrapper.kill("SIGKILL");
    await wrapper.status;
    await until("the orphaned simulator exits", () => !alive(pid));
    assert.equal(await exists(socket), false, "socket removed");
  } finally {
    if (pid > 0 && alive(pid)) Deno.kill(pid, "SIGKILL");
    await reader.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulator program: creates the socket's missing folders with mode 0700", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simdir-" });
  const socket = `${dir}/state/portreeve/portreeve.sock`;
  const child = simulatorProgram(socket).spawn();
  try {
    await until("the socket exists", () => exists(socket));
    for (const folder of [`${dir}/state`, `${dir}/state/portreeve`]) {
      assert.equal((await Deno.stat(folder)).mode! & 0o777, 0o700, folder);
    }
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
  } finally {
    await child.stderr.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

/** Runs the simulator to its exit; returns the code and what it wrote to stderr. */
async function refusal(socket: string): Promise<{ code: number; stderr: string }> {
  // A refusal is immediate: one that never comes fails here instead of hanging the suite.
  const out = await simulatorProgram(socket, [], AbortSignal.timeout(20_000)).output();
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
    for (const [socket, expected] of cases) {
      const { code, stderr } = await refusal(socket);
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
  for (const bad of ["abc", "1.5", "600001"]) {
    const out = await simulatorProgram("/tmp/never.sock", ["--latency", bad]).output();
    assert.equal(out.code, 2, bad);
    assert.match(new TextDecoder().decode(out.stderr), /--latency must be whole milliseconds/);
  }
});

Deno.test("simulator program: --latency and --serial say so, and report the queue at exit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simpace-" });
  const socket = `${dir}/portreeve.sock`;
  const child = simulatorProgram(socket, ["--latency", "5", "--serial"]).spawn();
  try {
    await until("the socket exists", () => exists(socket));
    const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
    const reply = await fetch("http://[100::]/v1/health", { client });
    assert.equal(reply.status, 200);
    await reply.body?.cancel();
    client.close();
    child.kill("SIGTERM");
    const { code } = await child.status;
    assert.equal(code, 0);
    const stderr = await new Response(child.stderr).text();
    assert.match(stderr, /5 ms per change, one request at a time/);
    assert.match(stderr, /SIMULATED daemon queue: \{"served":1,"peak":1\}/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
