/** doctor's approval line says, for every host, whether it can put the bridge's question. */
import assert from "node:assert/strict";
import { approvalReport } from "../../../src/cli/doctor_approval.ts";
import { HOST_PROFILES } from "../../../src/profiles/mod.ts";

Deno.test("doctor: the approval line states each host's path, as its profile says", () => {
  for (const profile of HOST_PROFILES) {
    const line = approvalReport("required", profile.id);
    assert.match(line, /--approval required/, profile.id);
    if (profile.asksThroughMcp === false) {
      assert.match(line, new RegExp(`${profile.label} cannot ask you through MCP`), line);
    } else if (profile.asksThroughMcp === true) {
      assert.match(line, new RegExp(`${profile.label} asks you through MCP`), line);
    }
  }
  // A host that asks but runs unattended here answers the question itself.
  assert.match(approvalReport("required", "copilot"), /`copilot -p` \(1\.0\.102\) .*"decline"/);
});
