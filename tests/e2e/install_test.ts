/**
 * `deno task install` into a temporary root, then both commands `config` prints for it — the
 * exact launcher path, and the bare `portreeve-mcp` with that root's bin on PATH — complete
 * initialize, tools/list and portreeve_health against the simulator with an empty DENO_DIR
 * (nothing cached) and no network (a fresh network namespace where the system allows one,
 * else proxies that lead nowhere). Then `deno task uninstall` removes what it wrote.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { withSimulator } from "./harness.ts";
import { installLayout } from "../../src/install_layout.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const decoder = new TextDecoder();

async function run(command: string, args: string[], env: Record<string, string>, cwd = ROOT) {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** `unshare -n` (an empty network namespace) when this machine allows it. */
async function offline(): Promise<string[]> {
  try {
    const probe = await new Deno.Command("unshare", { args: ["-n", "true"] }).output();
    if (probe.success) return ["unshare", "-n"];
  } catch {
    // no unshare here
  }
  return [];
}

const DEAD_PROXY = "http://127.0.0.1:9";

async function handshake(argv: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: argv[0],
    args: argv.slice(1),
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
  const client = new Client({ name: "install-e2e", version: "0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "portreeve_health"), stderr);
    const health = await client.callTool({ name: "portreeve_health", arguments: {} });
    assert.notEqual(health.isError, true, JSON.stringify(health));
    const data = (health.structuredContent as { data?: { softwareVersion?: string } }).data;
    assert.equal(data?.softwareVersion, "0.1.0");
  } finally {
    await client.close();
  }
}

Deno.test("install: the exact and the portable command run from an empty DENO_DIR, offline", async () => {
  const sim = await withSimulator();
  const dir = await Deno.makeTempDir({ prefix: "prmcp-install-" });
  try {
    const root = `${dir}/root`;
    const layout = installLayout(root);
    const base = { ...Deno.env.toObject(), PORTREEVE_SOCKET: sim.socketPath };
    const installed = await run(Deno.execPath(), ["task", "-q", "install"], {
      ...base,
      PORTREEVE_MCP_INSTALL_ROOT: root,
    });
    assert.equal(installed.code, 0, installed.stderr);
    assert.ok(installed.stdout.includes(layout.launcher), installed.stdout);
    assert.ok(installed.stdout.includes(layout.bundle), installed.stdout);
    assert.ok(installed.stdout.includes(`${root}/bin is not on your PATH`), installed.stdout);

    // A wiped cache, a home with nothing in it and no way to the network.
    await Deno.mkdir(`${dir}/deno-dir`);
    await Deno.mkdir(`${dir}/home`);
    const bare: Record<string, string> = {
      PATH: `${root}/bin:/usr/bin:/bin`,
      HOME: `${dir}/home`,
      DENO_DIR: `${dir}/deno-dir`,
      PORTREEVE_SOCKET: sim.socketPath,
      HTTPS_PROXY: DEAD_PROXY,
      HTTP_PROXY: DEAD_PROXY,
      ALL_PROXY: DEAD_PROXY,
      NPM_CONFIG_REGISTRY: DEAD_PROXY,
    };
    const jail = await offline();
    for (const portable of [false, true]) {
      const printed = await run(
        layout.launcher,
        [
          "config",
          "--host",
          "generic",
          "--json",
          ...(portable ? ["--portable"] : []),
        ],
        bare,
        dir,
      );
      assert.equal(printed.code, 0, printed.stderr);
      assert.equal(printed.stderr, "", "no warning for an installed copy");
      const { config } = JSON.parse(printed.stdout) as {
        config: { command: string; args: string[]; env: Record<string, string> };
      };
      assert.equal(config.command, portable ? "portreeve-mcp" : layout.launcher);
      assert.deepEqual(config.env, { DENO_NO_UPDATE_CHECK: "1" });
      await handshake([...jail, config.command, ...config.args], { ...bare, ...config.env });
    }
    // Deno keeps its analysis caches there, but no package or remote module was fetched.
    for (const cache of ["npm", "remote"]) {
      const entries = await Array.fromAsync(Deno.readDir(`${dir}/deno-dir/${cache}`)).catch(
        (error) => error instanceof Deno.errors.NotFound ? [] : Promise.reject(error),
      );
      assert.deepEqual(entries, [], `${cache} cache stays empty`);
    }

    const removed = await run(Deno.execPath(), ["task", "-q", "uninstall"], {
      ...base,
      PORTREEVE_MCP_INSTALL_ROOT: root,
    });
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /Removed:/);
    await assert.rejects(Deno.stat(layout.launcher), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(layout.lib), Deno.errors.NotFound);
    assert.deepEqual([...Deno.readDirSync(`${root}/bin`)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await sim.cleanup();
  }
});

Deno.test("install --socket: the launcher uses its granted socket when none is named", async () => {
  const sim = await withSimulator();
  const dir = await Deno.makeTempDir({ prefix: "prmcp-install-" });
  try {
    const root = `${dir}/root`;
    const layout = installLayout(root);
    // The default socket for this HOME is elsewhere: only the grant points at the simulator.
    await Deno.mkdir(`${dir}/home`);
    const env = { ...Deno.env.toObject(), HOME: `${dir}/home` };
    delete (env as Record<string, string | undefined>).PORTREEVE_SOCKET;
    delete (env as Record<string, string | undefined>).XDG_STATE_HOME;
    const installed = await run(
      Deno.execPath(),
      ["task", "-q", "install", "--socket", sim.socketPath],
      { ...env, PORTREEVE_MCP_INSTALL_ROOT: root },
    );
    assert.equal(installed.code, 0, installed.stderr);
    const printed = await run(layout.launcher, ["config", "--host", "generic", "--json"], env, dir);
    assert.equal(printed.code, 0, printed.stderr);
    const { config } = JSON.parse(printed.stdout) as { config: { args: string[] } };
    assert.deepEqual(config.args, ["serve", "--socket", sim.socketPath]);
    const doctor = await run(layout.launcher, ["doctor", "--json"], env, dir);
    assert.equal(doctor.code, 0, doctor.stdout);
    // Another socket is refused with the one fix that works for a launcher: install again.
    const other = await run(layout.launcher, ["doctor", "--socket", `${dir}/other.sock`], env, dir);
    assert.equal(other.code, 5, other.stdout);
    assert.match(other.stdout, /deno task install --socket .*other\.sock/);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await sim.cleanup();
  }
});

Deno.test("uninstall leaves a portreeve-mcp it did not write alone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-uninstall-" });
  try {
    const layout = installLayout(dir);
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(layout.launcher, "#!/bin/sh\necho someone else's\n");
    const out = await run(Deno.execPath(), ["task", "-q", "uninstall"], {
      ...Deno.env.toObject(),
      PORTREEVE_MCP_INSTALL_ROOT: dir,
    });
    assert.equal(out.code, 1);
    assert.match(out.stderr, /was not written by this installer; left alone/);
    assert.equal(await Deno.readTextFile(layout.launcher), "#!/bin/sh\necho someone else's\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
