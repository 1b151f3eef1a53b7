/**
 * The catalogue's answer to a tool's own bug: the agent reads `portreeve_internal` and no more,
 * while whoever runs the bridge (its log, a test) is told the cause. A gate refusal — a tool
 * that sends a consequential request without the approval module's proof — is such a bug: it
 * is refused unsent, and a test that meets one fails naming the request and why.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../../src/catalogue/define.ts";
import { consequential, post } from "../../../src/catalogue/routes.ts";
import { mutate } from "../../../src/catalogue/daemon_calls.ts";
import { inOrder, ok, ToolBug, toolRig } from "../../support/scripted_daemon.ts";

const SETTINGS = post(
  "/v1/actions/settings/execute",
  z.looseObject({}),
  consequential(["changes settings"], "changes the daemon's settings"),
);

/** A tool that forgets to ask: it sends a consequential request with no approval proof. */
const forgetful = defineTool({
  name: "portreeve_forgetful",
  title: "Forgetful",
  kind: "mutation",
  description: "Changes a setting without asking anyone.",
  input: z.strictObject({}),
  output: z.looseObject({}),
  routes: [SETTINGS],
  call: (ctx) => mutate(ctx, SETTINGS, {}, { updates: { leaseTtlMilliseconds: 40_000 } }),
  summary: () => "changed",
});

Deno.test("a gate refusal is kept from the daemon, and a test meeting it names the request", async () => {
  await using rig = toolRig(inOrder(ok({})), { tools: [forgetful] });
  const failed = await rig.call("portreeve_forgetful").then(() => null, (error) => error);
  assert.ok(failed instanceof ToolBug, String(failed));
  assert.match(failed.message, /^portreeve_forgetful answered portreeve_internal, a bridge bug: /);
  assert.match(
    failed.message,
    /GateRefusal: refused to send POST \/v1\/actions\/settings\/execute \(changes the daemon's settings\) with no approval; nothing was sent$/,
  );
  assert.deepEqual(rig.daemon.sent, [], "nothing reached the daemon");
});
