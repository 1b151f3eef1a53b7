/**
 * Host setup end to end: the generic command `config` prints is run for real and completes an
 * MCP handshake; toolsets shrink tools/list; diagnostics says the label and where the socket
 * came from. Doctor's verdicts, which start a bridge each, are in
 * tests/reliability/doctor_test.ts.
 */
import assert from "node:assert/strict";
import { HostClient } from "../support/host_client.ts";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { bridgeArgs, call, registered, runBundled, startBridge, withSimulator } from "./harness.ts";
import { childEnv } from "../../src/shared/permissions.ts";

Deno.test("the generic command printed by config runs and completes an MCP handshake", async () => {
  const env = await withSimulator();
  try {
    const printed = await runBundled([
      "config",
      "--host",
      "generic",
      "--label",
      "e2e",
      "--toolset",
      "read",
      "--json",
    ], env.socketPath);
    assert.equal(printed.code, 0, printed.stderr);
    const { config } = JSON.parse(printed.stdout) as {
      config: { command: string; args: string[]; env: Record<string, string> };
    };
    assert.ok(config.command.startsWith("/"), "absolute command");
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      // A host passes its own environment plus the entry's env block.
      env: childEnv(config.env),
      stderr: "pipe",
    });
    const client = new HostClient({ name: "setup-e2e", version: "0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.ok(
      tools.length > 0 && tools.every((t) => t.annotations?.readOnlyHint === true),
      "read toolset only",
    );
    const health = await client.callTool({ name: "portreeve_health", arguments: {} });
    assert.notEqual(health.isError, true);
    await client.close();
  } finally {
    await env.cleanup();
  }
});

Deno.test("toolsets register only their tools; unknown toolset is a usage error; diagnostics reports the label and socket source", async () => {
  const env = await withSimulator();
  try {
    const counts: Record<string, number> = {};
    for (const toolset of ["read", "coordinate", "full"]) {
      const bridge = await startBridge({
        socketPath: env.socketPath,
        // The full toolset's bridge is also the one whose diagnostics are read.
        serveArgs: ["--toolset", toolset, ...(toolset === "full" ? ["--label", "diag"] : [])],
      });
      const { tools } = await bridge.client.listTools();
      counts[toolset] = tools.length;
      if (toolset === "read") {
        const r = await bridge.client.callTool({ name: "portreeve_lease_acquire", arguments: {} })
          .catch((e) => e);
        assert.match(String(r), /Unknown tool/);
      }
      if (toolset === "coordinate") {
        assert.ok(
          !tools.some((t) => t.name.endsWith("_execute")),
          "no execute tools in coordinate",
        );
        assert.ok(tools.some((t) => t.name === "portreeve_lease_acquire"));
      }
      if (toolset === "full") {
        // Misconfiguration is data, not a crash: diagnostics says where the socket came from.
        const diag = await call(bridge, "portreeve_diagnostics");
        const data = diag.envelope.data as {
          bridge: { label: string; socketSource: string; approval: unknown };
        };
        assert.equal(data.bridge.label, "diag");
        assert.equal(data.bridge.socketSource, "PORTREEVE_SOCKET");
        assert.deepEqual(data.bridge.approval, { mode: "required", hostCanAsk: false });
      }
      await bridge.close();
    }
    assert.deepEqual(counts, {
      read: registered("read"),
      coordinate: registered("coordinate"),
      full: registered("full"),
    });
    const bad = await new Deno.Command(Deno.execPath(), {
      args: bridgeArgs({ socketPath: env.socketPath, serveArgs: ["--toolset", "everything"] }),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bad.code, 2);
    assert.match(
      new TextDecoder().decode(bad.stderr),
      /--toolset must be one of read, coordinate, full/,
    );
    assert.equal(bad.stdout.length, 0, "nothing on stdout");
  } finally {
    await env.cleanup();
  }
});

Deno.test("serve refuses a relative socket and a bad label with exit 2 and one clear line", async () => {
  for (
    const [args, pattern] of [
      [["--socket", "relative.sock"], /--socket must be an absolute path/],
      [["--label", "../x"], /Invalid label/],
      [["--approval", "ask"], /--approval must be one of required, auto, off/],
      [["--approval-ms", "10"], /--approval-ms must be an integer from 1000 to 300000/],
    ] as const
  ) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: bridgeArgs({ socketPath: "/tmp/x.sock", serveArgs: [...args] }),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2);
    assert.match(new TextDecoder().decode(out.stderr), pattern);
    assert.equal(out.stdout.length, 0);
  }
});
