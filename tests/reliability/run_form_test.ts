/**
 * The run form reaches nothing but its socket and fetches no code:
 * - the exact host command `config` prints (its args and env, nothing else from us), watched
 *   with `strace -f -e trace=network`, opens no AF_INET/AF_INET6 socket while it starts,
 *   lists its tools and calls one (Deno's update check would); for a source run and for the
 *   launcher of an install or release folder (which computes its grant at launch);
 * - under the real flags, a dependency's dynamic `import("npm:…")` or `import("https://…")`
 *   fails and leaves the lock file and Deno's package and module caches as they were;
 * - a socket path that is a directory or holds a comma is a one-line usage error (exit 2).
 */
import { denoFinished } from "../support/processes.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { withSimulator } from "../e2e/harness.ts";
import { confinedFlags, type RunForm } from "../../src/shared/permissions.ts";
import { attachPeer, envelopeOf } from "../support/raw_peer.ts";
import { buildTree } from "../../src/cli/install/tree.ts";
import { installLayout } from "../../src/shared/install_layout.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = `${ROOT}main.ts`;
const decoder = new TextDecoder();

/** The caller's environment without the variable the printed entry must set itself. */
function hostEnv(extra: Record<string, string>): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.DENO_NO_UPDATE_CHECK;
  return { ...env, ...extra };
}

async function requireStrace(): Promise<void> {
  try {
    await new Deno.Command("strace", { args: ["-V"], stdout: "null" }).output();
  } catch {
    throw new Error(
      "strace is required for this test (.ci/run installs it: apt-get install strace)",
    );
  }
}

/** Lines of an strace log that open or use an IPv4/IPv6 socket. */
function inetLines(log: string): string[] {
  return log.split("\n").filter((line) => /AF_INET6?\b/.test(line));
}

function traced(argv: string[], env: Record<string, string>, log: string) {
  const child = new Deno.Command("strace", {
    args: ["-f", "-qq", "-e", "trace=network", "-o", log, ...argv],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return attachPeer(child, child.stdin, child.stdout, child.stderr);
}

/** `config --host generic --json` run by `argv`, for the simulator's socket. */
async function printedCommand(argv: string[], socketPath: string) {
  const printed = await new Deno.Command(argv[0], {
    args: [...argv.slice(1), "config", "--host", "generic", "--json"],
    env: { PORTREEVE_SOCKET: socketPath },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(printed.code, 0, decoder.decode(printed.stderr));
  return (JSON.parse(decoder.decode(printed.stdout)) as {
    config: { command: string; args: string[]; env: Record<string, string> };
  }).config;
}

Deno.test("run form: the printed exact command opens no IPv4/IPv6 socket (strace)", async () => {
  await requireStrace();
  const sim = await withSimulator();
  try {
    const config = await printedCommand(
      [Deno.execPath(), "run", ...confinedFlags(sim.socketPath), MAIN],
      sim.socketPath,
    );

    // Control: strace does see an IPv4 connection attempt from a Deno process.
    const control = `${sim.dir}/control.log`;
    await new Deno.Command("strace", {
      args: [
        "-f",
        "-qq",
        "-e",
        "trace=network",
        "-o",
        control,
        Deno.execPath(),
        "eval",
        'await Deno.connect({ hostname: "127.0.0.1", port: 9 }).catch(() => {})',
      ],
      stdout: "null",
      stderr: "null",
    }).output();
    assert.ok(inetLines(await Deno.readTextFile(control)).length > 0, "strace sees AF_INET");

    await assertNoInet([config.command, ...config.args], config.env, `${sim.dir}/bridge.log`);
  } finally {
    await sim.cleanup();
  }
});

/** Runs `argv` under strace through initialize, tools/list and a call; no AF_INET/AF_INET6. */
async function assertNoInet(argv: string[], env: Record<string, string>, log: string) {
  const peer = traced(argv, hostEnv(env), log);
  await peer.initialize();
  const list = await peer.request("tools/list");
  assert.ok(Array.isArray((list.result as { tools?: unknown[] }).tools));
  const health = envelopeOf(await peer.tool("portreeve_health"));
  assert.equal(health.ok, true, JSON.stringify(health));
  await peer.closeStdin();
  assert.equal((await peer.exited()).code, 0, peer.stderrText());
  const trace = await Deno.readTextFile(log);
  assert.match(trace, /AF_UNIX/, "the trace saw the daemon connection");
  assert.deepEqual(inetLines(trace), [], "no IPv4/IPv6 socket");
}

Deno.test("run form: the launcher's printed command opens no IPv4/IPv6 socket (strace)", async () => {
  await requireStrace();
  const sim = await withSimulator();
  const dir = await Deno.makeTempDir({ prefix: "prmcp-launcher-strace-" });
  try {
    const layout = installLayout(dir);
    await buildTree(dir, Deno.execPath(), Deno.build.os);
    const config = await printedCommand([layout.launcher], sim.socketPath);
    assert.equal(config.command, layout.launcher);
    await assertNoInet([config.command, ...config.args], config.env, `${sim.dir}/launcher.log`);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await sim.cleanup();
  }
});

const IMPORTS = {
  npm: ["npm:is-odd", "3.0.1"].join("@"),
  remote: ["https://deno.land", "std@0.224.0", "version.ts"].join("/"),
};

async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(path)) {
      out.push(`${path}/${entry.name}`);
      if (entry.isDirectory) await walk(`${path}/${entry.name}`);
    }
  };
  await walk(dir).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  return out.sort();
}

for (const form of ["source", "bundle"] as RunForm[]) {
  Deno.test(`run form (${form}): dynamic npm and https imports fail; lock and caches untouched`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "prmcp-fetch-" });
    try {
      // A project like ours (its deno.json and lock) with an empty Deno cache of its own.
      await Deno.copyFile(`${ROOT}deno.json`, `${dir}/deno.json`);
      await Deno.copyFile(`${ROOT}deno.lock`, `${dir}/deno.lock`);
      await Deno.mkdir(`${dir}/deno-dir`);
      const probe = `${dir}/probe.js`;
      await Deno.writeTextFile(
        probe,
        "const out = {};\n" +
          "for (const [name, spec] of Object.entries(JSON.parse(Deno.args[0]))) {\n" +
          "  try { await import(spec); out[name] = 'loaded'; }\n" +
          "  catch (error) { out[name] = String(error).slice(0, 300); }\n" +
          "}\nconsole.log(JSON.stringify(out));\n",
      );
      const lockBefore = await Deno.readTextFile(`${dir}/deno.lock`);
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...confinedFlags(`${dir}/portreeve.sock`, form),
          probe,
          JSON.stringify(IMPORTS),
        ],
        cwd: dir,
        env: { DENO_DIR: `${dir}/deno-dir`, DENO_NO_UPDATE_CHECK: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, decoder.decode(out.stderr));
      const report = JSON.parse(decoder.decode(out.stdout)) as Record<string, string>;
      for (const name of Object.keys(IMPORTS)) {
        // Refused by a flag of the run form, not by an accident of this machine's network.
        assert.match(
          report[name],
          /--(cached-only|no-npm|no-remote|frozen)/,
          `${name}: ${report[name]}`,
        );
      }
      assert.equal(await Deno.readTextFile(`${dir}/deno.lock`), lockBefore, "lock file unchanged");
      const cached = (await tree(`${dir}/deno-dir`)).filter((path) =>
        /\/deno-dir\/(npm|remote)\/./.test(path)
      );
      assert.deepEqual(cached, [], "nothing downloaded into the package or module cache");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("run form: a directory, a comma or an over-long socket path is a one-line usage error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-sockdir-" });
  const long = `${dir}/${"s".repeat(108 - dir.length)}.sock`;
  const why = (socket: string) =>
    socket === long ? /too long for a Unix socket/ : socket.includes(",") ? /comma/ : /whole tree/;
  try {
    const cases = ["/", `${dir}/`, dir, `${dir}/a,b.sock`, long];
    for (const command of ["serve", "config", "doctor"]) {
      for (const socket of cases) {
        const extra = command === "config" ? ["--host", "generic"] : [];
        const out = await denoFinished(["task", "-q", command, "--socket", socket, ...extra], {
          cwd: ROOT,
          stdin: "null",
        });
        const stderr = out.stderr;
        const where = `${command} --socket ${socket}`;
        assert.equal(out.code, 2, `${where}: ${stderr}`);
        assert.equal(out.stdout, "", where);
        assert.match(stderr, /^portreeve-mcp[^\n]*\n$/, `${where}: one line`);
        assert.match(stderr, why(socket), where);
      }
    }
    // The program itself (as an installed launcher runs it), and the simulator, say the same.
    for (
      const args of [
        ["run", "--no-prompt", "main.ts", "serve", "--socket", long],
        ["run", "-A", "scripts/simulator.ts", "--socket", long],
      ]
    ) {
      const out = await denoFinished(args, { cwd: ROOT, stdin: "null" });
      assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
      assert.match(out.stderr, /too long for a Unix socket/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
