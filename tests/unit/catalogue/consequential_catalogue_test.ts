/**
 * The receipt tools (a preview and an execute per stem) as advertised: kinds and annotations, capabilities, the approval
 * sentence, the context budget, and schema rejections that never reach the daemon.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";

const CONSEQUENTIAL_TOOLS = ALL_TOOLS.filter((t) => t.kind === "preview" || t.kind === "execute");
import { describeTool } from "../../../src/results/describe.ts";
import { SERVER_INSTRUCTIONS } from "../../../src/catalogue/instructions.ts";

const tool = (name: string) => CONSEQUENTIAL_TOOLS.find((t) => t.name === `portreeve_${name}`)!;
const STEMS = [
  "port_reclaim",
  "claim_reassign",
  "claim_delete",
  "claims_prune",
  "stack_apply",
  "stacks_prune",
  "settings_update",
];

Deno.test("seven pairs: previews are idempotent and not destructive; executes are destructive", () => {
  assert.equal(CONSEQUENTIAL_TOOLS.length, 2 * STEMS.length);
  for (const stem of STEMS) {
    const preview = describeTool(tool(`${stem}_preview`));
    const execute = describeTool(tool(`${stem}_execute`));
    assert.deepEqual(preview.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.equal(execute.annotations?.destructiveHint, true);
    // The instructions state the rule for every execute, once. An execute's own description
    // says what it does, which reads right in a host's permission prompt: nothing in it says
    // approval has happened or will.
    assert.match(SERVER_INSTRUCTIONS, /\*_execute only on user approval/);
    assert.doesNotMatch(execute.description ?? "", /approv/i, `${stem} execute`);
    assert.ok(Object.keys(execute.inputSchema.properties ?? {}).includes("receiptId"));
  }
  for (const t of CONSEQUENTIAL_TOOLS) {
    assert.deepEqual(t.capabilities, ["mcp-foundations-v1"], t.name);
  }
});

Deno.test("context budget: name + description + input schema of the 14 tools stays under 7 KB", () => {
  let visible = 0;
  for (const t of CONSEQUENTIAL_TOOLS) {
    visible += t.name.length + t.description.length +
      JSON.stringify(describeTool(t).inputSchema).length;
  }
  assert.ok(visible < 7000, `model-visible bytes ${visible}`);
});

function rejects(name: string, args: unknown, pattern: RegExp): void {
  const parsed = tool(name).input.safeParse(args);
  assert.equal(parsed.success, false, `${name} accepted ${JSON.stringify(args)}`);
  assert.match(parsed.error!.issues.map((i: { message: string }) => i.message).join("; "), pattern);
}

Deno.test("inputs: exclusive ports, absolute stack roots, public settings only", () => {
  const claimId = crypto.randomUUID();
  const receiptId = crypto.randomUUID();
  rejects(
    "claim_reassign_preview",
    { claimId, preferredPort: 4000, exactPort: 4001 },
    /mutually exclusive/,
  );
  assert.ok(tool("claim_reassign_preview").input.safeParse({ claimId, exactPort: 4001 }).success);
  const definition = { version: 1, project: "p", components: { web: {} } };
  rejects("stack_apply_preview", { stackRoot: "rel/dir", definition }, /absolute path/);
  rejects("stack_apply_execute", { receiptId, stackRoot: "./x" }, /absolute path/);
  rejects(
    "stack_apply_preview",
    { stackRoot: "/x", definition: { ...definition, extra: 1 } },
    /Unrecognized key/,
  );
  rejects(
    "settings_update_preview",
    { updates: { socketPath: "/s" } },
    /unsupported setting\(s\) socketPath/,
  );
  rejects("settings_update_preview", { updates: {} }, /at least one setting/);
  rejects("settings_update_preview", { updates: { excludedPorts: [0] } }, /./);
  rejects("port_reclaim_preview", { port: 80, policy: "kill" }, /./);
  rejects("claims_prune_preview", { olderThanMilliseconds: -1 }, /./);
  rejects("settings_update_execute", { receiptId, target: "global" }, /Unrecognized key/);
});
