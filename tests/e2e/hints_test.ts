/**
 * Who is told what. An agent is told what happened and that a person must act; it is never
 * given a command. A person (the bridge's log, doctor) gets commands that run as printed: the
 * misconfiguration log line prints a configuration for the refused socket, and doctor's
 * unavailable verdict names PortReeve and a demo that runs a SIMULATED daemon on a temporary
 * socket — never on the user's socket (run as printed in tests/reliability/demo_hint_test.ts).
 * That every printed next step runs as printed, for each kind of reader, is walked in
 * tests/reliability/printed_steps_test.ts.
 */
import { finished } from "../support/processes.ts";
import assert from "node:assert/strict";
import { startBridge, withSimulator } from "./harness.ts";
import { childEnv } from "../../src/shared/permissions.ts";
import { envelopeOf } from "../../src/results/result.ts";

function quotedCommands(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

async function errorOf(
  socketPath: string,
  grantSocket: string,
  serveSocket: string,
  clientName?: string,
) {
  const bridge = await startBridge({
    socketPath,
    grantSocket,
    serveArgs: ["--socket", serveSocket],
    clientName,
  });
  try {
    const result = await bridge.client.callTool({ name: "portreeve_health", arguments: {} });
    const { text } = (result.content as { text: string }[])[0];
    const envelope = envelopeOf(result);
    assert.ok(!envelope.ok, text);
    return { error: envelope.error, text, log: bridge.stderr() };
  } finally {
    await bridge.close();
  }
}

function sh(command: string, env: Record<string, string> = {}) {
  return finished("sh", ["-c", command], { env: childEnv(env) });
}

Deno.test("hints: a socket outside the grant: the agent is told what it is, the log says how", async () => {
  const env = await withSimulator();
  try {
    const elsewhere = `${env.dir}/elsewhere.sock`;
    const { error, log } = await errorOf(env.socketPath, env.socketPath, elsewhere);
    assert.equal(error.code, "portreeve_misconfigured");
    assert.ok(error.message.includes(`grant names ${env.socketPath}`), error.message);
    assert.match(error.message, /a permission setting, not an unreachable daemon/);
    assert.deepEqual(quotedCommands(`${error.message} ${error.nextStep}`), [], "no command");
    assert.match(error.nextStep, /^Tell the user this bridge must be relaunched/);

    // The log line is for a person: its command, run as printed, configures that socket.
    const command = quotedCommands(log).find((c) => c.includes(" config "));
    assert.ok(command, log);
    const out = await sh(`${command} --json`, { PORTREEVE_SOCKET: env.socketPath });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).config.socket, elsewhere);
  } finally {
    await env.cleanup();
  }
});

Deno.test("hints: daemon down: the agent is told the socket and to ask the user to run doctor for its host, in under 600 bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-hint-" });
  const socket = `${dir}/portreeve.sock`;
  try {
    // Named as Claude Code names itself: the step names its profile, as `--host` takes it.
    const { error, text } = await errorOf(socket, socket, socket, "claude-code");
    assert.equal(error.code, "portreeve_unavailable");
    assert.equal(error.retryable, true);
    assert.equal(
      error.message,
      `Nothing answers at ${socket}, the PortReeve socket this bridge uses (no socket there).`,
    );
    assert.match(
      error.nextStep,
      /^Ask the user to run `portreeve-mcp doctor --host claude`: .* start nothing yourself\.$/,
    );
    assert.ok(new TextEncoder().encode(text).length <= 600, `${text.length} bytes: ${text}`);
    assert.doesNotMatch(text, /http:|\[100::\]|simulat|deno|not running/i);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
