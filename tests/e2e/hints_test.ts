/**
 * Hints can be pasted as printed. The misconfiguration message of a bridge started from this
 * checkout names the granted socket, calls it a permission grant, and its command, run in a
 * shell as printed, prints a configuration for the refused socket. The unavailable hint names
 * the PortReeve project, and its simulator command, run as printed, starts a daemon there.
 */
import assert from "node:assert/strict";
import { startBridge, withSimulator } from "./harness.ts";
import { childEnv } from "../../src/child_env.ts";

function quotedCommands(message: string): string[] {
  return [...message.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

async function errorOf(socketPath: string, grantSocket: string, serveSocket: string) {
  const bridge = await startBridge({
    socketPath,
    grantSocket,
    serveArgs: ["--socket", serveSocket],
  });
  try {
    const result = await bridge.client.callTool({ name: "portreeve_health", arguments: {} });
    const envelope = result.structuredContent as { error?: { code: string; message: string } };
    assert.ok(envelope.error, JSON.stringify(result));
    return envelope.error;
  } finally {
    await bridge.close();
  }
}

Deno.test("hints: the misconfiguration command runs as printed and names the grant", async () => {
  const env = await withSimulator();
  try {
    const elsewhere = `${env.dir}/elsewhere.sock`;
    const error = await errorOf(env.socketPath, env.socketPath, elsewhere);
    assert.equal(error.code, "portreeve_misconfigured");
    assert.ok(error.message.includes(`grant names ${env.socketPath}`), error.message);
    assert.match(error.message, /permission grant, not an unreachable daemon/);
    const command = quotedCommands(error.message).find((c) => c.includes(" config "));
    assert.ok(command, error.message);
    const out = await new Deno.Command("sh", {
      args: ["-c", `${command} --json`],
      env: childEnv({ PORTREEVE_SOCKET: env.socketPath }),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const printed = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(printed.config.socket, elsewhere);
  } finally {
    await env.cleanup();
  }
});

Deno.test("hints: the unavailable hint names PortReeve and a simulator command that works", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-hint-" });
  const socket = `${dir}/portreeve.sock`;
  try {
    const error = await errorOf(socket, socket, socket);
    assert.equal(error.code, "portreeve_unavailable");
    assert.match(error.message, /https:\/\/github\.com\/TrentBrown\/portreeve/);
    const command = quotedCommands(error.message).find((c) => c.includes(" simulator "));
    assert.ok(command, error.message);
    const simulator = new Deno.Command("sh", {
      args: ["-c", command.replace(/ && /, " && exec ")],
      env: childEnv(),
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const info = await Deno.lstat(socket).catch(() => null);
        if (info?.isSocket) break;
        assert.ok(Date.now() < deadline, "the simulator command started a daemon at the socket");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      simulator.kill("SIGTERM");
      await simulator.status;
      // `deno task` passes SIGTERM on; the simulator then removes its socket.
      const present = () => Deno.lstat(socket).then(() => true, () => false);
      for (let i = 0; i < 100 && await present(); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(
        await present(),
        false,
        "stopped while seeding, the simulator removed its socket",
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
