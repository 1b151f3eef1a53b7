/**
 * The server instructions over real stdio: the same bytes on every start whatever the label
 * (a host's cached prompt survives a new session), within INSTRUCTIONS_MAX_BYTES, and the rules
 * that matter most first.
 */
import assert from "node:assert/strict";
import { startBridge, withSimulator } from "./harness.ts";
import { INSTRUCTIONS_MAX_BYTES } from "../../src/catalogue/instructions.ts";

Deno.test("the instructions are fixed, short, and open with the essential rule", async () => {
  const env = await withSimulator();
  const served: string[] = [];
  try {
    for (const label of ["first-agent", "second.agent_2"]) {
      const bridge = await startBridge({
        socketPath: env.socketPath,
        serveArgs: ["--label", label],
      });
      try {
        served.push(bridge.client.getInstructions() ?? "");
      } finally {
        await bridge.close();
      }
    }
  } finally {
    await env.cleanup();
  }
  const [first, second] = served;
  assert.equal(first, second, "byte-identical across starts and labels");
  const bytes = new TextEncoder().encode(first).length;
  assert.ok(bytes > 0 && bytes <= INSTRUCTIONS_MAX_BYTES, `${bytes} bytes`);
  // Codex's tool_search line keeps about 250 characters: the rules are well within them.
  const head = first.slice(0, 250);
  assert.match(head, /^Never kill a process to free a port/);
  assert.match(head, /\*_execute only on user approval/);
  assert.doesNotMatch(first, /[0-9a-f]{8}-[0-9a-f]{4}-/, "no run id or any per-process value");
});
