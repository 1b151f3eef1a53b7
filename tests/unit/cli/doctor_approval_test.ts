/** doctor's approval line says, for every host, whether it can show the bridge's question. */
import assert from "node:assert/strict";
import { approvalReport } from "../../../src/cli/doctor_approval.ts";
import { HOST_PROFILES } from "../../../src/profiles/mod.ts";

Deno.test("doctor: the approval line states each host's path, as its profile says", () => {
  for (const profile of HOST_PROFILES) {
    const line = approvalReport("required", profile.id);
    assert.match(line, /^required: /, profile.id);
    if (profile.asksThroughMcp === false) {
      assert.match(line, /(does not|never) declare/i, `${profile.id}: ${line}`);
    } else if (profile.asksThroughMcp === true) {
      assert.match(line, /declares MCP elicitation/, `${profile.id}: ${line}`);
    }
  }
  assert.match(approvalReport("required", "zed"), /Zed does not declare MCP elicitation/);
  assert.match(approvalReport("auto", "vscode"), /VS Code declares MCP elicitation/);
});
