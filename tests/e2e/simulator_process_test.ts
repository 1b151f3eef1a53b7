/**
 * The simulator started as a program (`deno task simulator`) removes its socket and exits on
 * SIGINT and SIGTERM, and when the process that started it goes away (a killed `npx` or
 * `deno task` wrapper must not leave an orphan holding the socket).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/simulator/main.ts", import.meta.url));

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
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
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", MAIN, "--socket", socket],
      stdout: "null",
      stderr: "piped",
    }).spawn();
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

Deno.test("simulator program: --latency must be whole milliseconds (exit 2)", async () => {
  for (const bad of ["abc", "1.5", "600001"]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", MAIN, "--socket", "/tmp/never.sock", "--latency", bad],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2, bad);
    assert.match(new TextDecoder().decode(out.stderr), /--latency must be whole milliseconds/);
  }
});

Deno.test("simulator program: --latency and --serial say so, and report the queue at exit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-simpace-" });
  const socket = `${dir}/portreeve.sock`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "--socket", socket, "--latency", "5", "--serial"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    await until("the socket exists", () => exists(socket));
    const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
    const reply = await fetch("http://portreeve.invalid/v1/health", { client });
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
