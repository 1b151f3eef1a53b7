/**
 * The stdio transport of the real `serve` process: bad frames, oversize frames, lifecycle,
 * the bundle, and confinement. No daemon traffic at start-up and each era's cache fields on
 * tools/list are checked by foundation_test.ts, on the bridge it starts in each era.
 */
import assert from "node:assert/strict";
import {
  envelopeOf,
  idKey,
  openingFrames,
  requestFrame,
  spawnPeer,
  type ToolResult,
} from "../support/raw_peer.ts";
import type { DiscoverResult } from "@modelcontextprotocol/client";
import { call, SOURCE_ENTRY, startBridge, withSimulator } from "./harness.ts";
import { confinedFlags } from "../../src/shared/permissions.ts";
import { Catalogue } from "../../src/catalogue/catalogue.ts";

const INITIALIZE = openingFrames(0, "raw");

/**
 * Bad frames, then stdin EOF, on one bridge: each gets its specific error, and the bridge
 * serves on until its input ends, then exits cleanly.
 */
async function badFramesThenEof(env: { socketPath: string }): Promise<void> {
  const bridge = spawnPeer({ socketPath: env.socketPath });
  await bridge.send(INITIALIZE);
  assert.ok((await bridge.response(0)).result);
  await bridge.send("this is not json\n");
  assert.equal(((await bridge.response(null)).error as { code: number }).code, -32700);
  await bridge.send(
    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","pad":"${
      "a".repeat(1024 * 1024)
    }"}}\n`,
  );
  const big = await bridge.response(7);
  assert.equal((big.error as { code: number }).code, -32600);
  assert.match((big.error as { message: string }).message, /exceeds the 1048576-byte limit/);
  await bridge.send(requestFrame(8, "tools/call", { name: "portreeve_nope", arguments: {} }));
  assert.equal(((await bridge.response(8)).error as { code: number }).code, -32602);
  await bridge.send(requestFrame(9, "no/such/method"));
  assert.equal(((await bridge.response(9)).error as { code: number }).code, -32601);
  await bridge.send(
    requestFrame(10, "tools/call", {
      name: "portreeve_port_inspect",
      arguments: { port: "eighty" },
    }),
  );
  const invalid = (await bridge.response(10)).result as ToolResult;
  assert.equal(invalid.isError, true);
  assert.equal(envelopeOf(invalid).error?.code, "portreeve_invalid_input");
  await bridge.send(new Uint8Array([0xff, 0xfe, 0x0a]));
  // The second answer without an id is the one to the invalid bytes.
  const unnamed = () => bridge.byId.get(idKey(null)) ?? [];
  await bridge.when(() => unnamed().length === 2); // an answer to the bad bytes
  assert.match((unnamed()[1].error as { message: string }).message, /UTF-8|Parse/);
  await bridge.send(requestFrame(11, "tools/call", { name: "portreeve_health", arguments: {} }));
  const health = (await bridge.response(11)).result as { isError?: boolean };
  assert.notEqual(health.isError, true, "still serving after all of that");
  await bridge.closeStdin();
  const status = await bridge.exited();
  assert.equal(status.code, 0, "stdin EOF");
  assert.deepEqual(bridge.violations, [], "every stdout line is one JSON-RPC message");
  assert.ok(!bridge.stdoutText().includes('"level"'), "no log line on stdout");
}

Deno.test("bad frames get specific errors; oversize frames are refused unread; the bridge lives on; stdin EOF, SIGTERM and SIGINT: a clean exit, code 0", async () => {
  const env = await withSimulator();
  try {
    await Promise.all([
      badFramesThenEof(env),
      ...(["SIGTERM", "SIGINT"] as const).map(async (signal) => {
        const bridge = spawnPeer({ socketPath: env.socketPath });
        await bridge.send(INITIALIZE);
        await bridge.response(0);
        bridge.process.kill(signal);
        const status = await bridge.exited();
        assert.equal(status.code, 0, signal);
        await bridge.closeStdin();
      }),
    ]);
  } finally {
    await env.cleanup();
  }
});

Deno.test("no daemon: diagnostics and compatibility answer; daemon tools are unavailable; recovery without restart", async () => {
  const dir = await Deno.makeTempDir();
  const socketPath = `${dir}/portreeve.sock`;
  // The auto client probes the bridge's era; the modern one remembers its answer.
  let discovered: DiscoverResult | undefined;
  for (const era of ["legacy", "auto", "modern"] as const) {
    const bridge = await startBridge({ socketPath, era, discovered });
    discovered ??= bridge.client.getDiscoverResult();
    try {
      const diag = await call(bridge, "portreeve_diagnostics");
      assert.equal(diag.isError, false);
      assert.equal((diag.envelope.data!.daemon as { available: boolean }).available, false);
      const compat = await call(bridge, "portreeve_compatibility");
      assert.equal(compat.isError, false);
      assert.equal(compat.envelope.data!.compatible, false);
      const health = await call(bridge, "portreeve_health");
      assert.equal(health.isError, true);
      assert.equal(health.envelope.error?.code, "portreeve_unavailable");
      assert.equal(health.envelope.error?.retryable, true);
      if (era === "legacy") {
        const { startSimulator } = await import("../../src/simulator/mod.ts");
        const sim = await startSimulator({ socketPath, observeHost: false });
        const again = await call(bridge, "portreeve_health");
        assert.equal(again.isError, false, again.text);
        await sim.close();
      }
    } finally {
      await bridge.close();
    }
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an incompatible daemon: diagnostics explain, gated tools are portreeve_incompatible (not retryable)", async () => {
  const env = await withSimulator({ protocol: { minimum: 2, maximum: 3 } });
  const bridge = await startBridge({ socketPath: env.socketPath });
  try {
    const compat = await call(bridge, "portreeve_compatibility");
    assert.equal(compat.envelope.data!.compatible, false);
    assert.match(String(compat.envelope.data!.guidance), /protocol 2–3/);
    const ports = await call(bridge, "portreeve_ports_list");
    assert.equal(ports.envelope.error?.code, "portreeve_incompatible");
    assert.equal(ports.envelope.error?.retryable, false);
  } finally {
    await bridge.close();
    await env.cleanup();
  }
});

// Every other test here runs the bundle (the harness's default); a checkout's `serve` runs
// the source, under the same permissions and its own no-fetch flags.
Deno.test("the source runs under the same permission flags", async () => {
  const env = await withSimulator();
  const bridge = await startBridge({
    socketPath: env.socketPath,
    entry: SOURCE_ENTRY,
    era: "auto",
  });
  try {
    // The default toolset is the whole catalogue.
    const whole = new Catalogue("full").size;
    assert.equal((await bridge.client.listTools()).tools.length, whole);
    assert.equal((await call(bridge, "portreeve_health")).isError, false);
  } finally {
    await bridge.close();
    await env.cleanup();
  }
});

Deno.test("a --socket outside the grant is a clear misconfiguration naming the granted socket", async () => {
  const env = await withSimulator();
  const bridge = await startBridge({
    socketPath: env.socketPath,
    serveArgs: ["--socket", "/tmp/elsewhere/portreeve.sock"],
  });
  try {
    const health = await call(bridge, "portreeve_health");
    assert.equal(health.envelope.error?.code, "portreeve_misconfigured");
    assert.ok(health.envelope.error?.message.includes(env.socketPath), health.text);
    assert.match(bridge.stderr(), /may not use \/tmp\/elsewhere/);
  } finally {
    await bridge.close();
    await env.cleanup();
  }
});

Deno.test("confinement: under the real flags nothing but the socket can be touched", async () => {
  // The probe (shared with the reliability suite) tries every way out and reports each.
  const dir = await Deno.makeTempDir();
  const socketPath = `${dir}/portreeve.sock`;
  const probe = new URL("../reliability/fixtures/escape_probe.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...confinedFlags(socketPath), probe, socketPath, import.meta.filename!],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, string>;
  for (const [attempt, outcome] of Object.entries(report)) {
    assert.equal(outcome, "denied", `${attempt} was ${outcome}`);
  }
  assert.ok(Object.keys(report).length >= 20);
  await Deno.remove(dir, { recursive: true });
});
