/** How each host's entry is taken out again, derived from its profile's registration command. */
import assert from "node:assert/strict";
import { HOST_PROFILES, removalCommand, removalStep } from "../../../src/profiles/mod.ts";
import type { HostProfile } from "../../../src/profiles/profile.ts";

const byId = (id: string) => HOST_PROFILES.find((profile) => profile.id === id)!;

Deno.test("removal: `PROGRAM mcp remove`, in the scope the entry was added to", () => {
  assert.deepEqual(removalCommand(byId("claude")), [
    "claude",
    "mcp",
    "remove",
    "--scope",
    "user",
    "portreeve",
  ]);
  assert.deepEqual(removalCommand(byId("codex")), ["codex", "mcp", "remove", "portreeve"]);
  assert.deepEqual(removalCommand(byId("gemini")), [
    "gemini",
    "mcp",
    "remove",
    "-s",
    "user",
    "portreeve",
  ]);
});

Deno.test("removal: the npm hosts as their own CLIs take it (checked against each one's --help)", () => {
  assert.deepEqual(removalCommand(byId("copilot")), ["copilot", "mcp", "remove", "portreeve"]);
  assert.deepEqual(removalCommand(byId("qwen")), [
    "qwen",
    "mcp",
    "remove",
    "-s",
    "user",
    "portreeve",
  ]);
  assert.deepEqual(removalCommand(byId("cline")), ["cline", "mcp", "remove", "portreeve"]);
  // OpenCode 1.18 adds with `opencode mcp add` but has no `mcp remove`.
  assert.equal(removalCommand(byId("opencode")), null);
  assert.match(removalStep(byId("opencode")), /^OpenCode: delete the "portreeve" entry from /);
  // VS Code's `code --add-mcp` has no counterpart either.
  assert.equal(removalCommand(byId("vscode")), null);
});

Deno.test("removal: a host with no `mcp add` command is told where to delete the entry", () => {
  assert.equal(removalCommand(byId("generic")), null);
  assert.match(
    removalStep(byId("generic")),
    /^Generic stdio host: delete the "portreeve" entry from /,
  );
  // A registration command of another shape is not guessed at.
  const other: HostProfile = { ...byId("claude"), setupCommand: ["code", "--add-mcp", "{}"] };
  assert.equal(removalCommand(other), null);
  assert.match(removalStep(other), /delete the "portreeve" entry from ~\/\.claude\.json/);
});

Deno.test("removal: every profile gets a step", () => {
  for (const profile of HOST_PROFILES) {
    assert.ok(removalStep(profile).startsWith(`${profile.label}: `), profile.id);
  }
});
