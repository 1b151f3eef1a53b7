/** A host that cannot be installed fails the suite with a message that says so. */
import assert from "node:assert/strict";
import { install } from "./install.ts";

Deno.test("install: a version npm cannot install fails loudly and leaves no install behind", async () => {
  const root = await Deno.makeTempDir({ prefix: "prmcp-hosts-install-" });
  try {
    const missing = {
      host: "claude",
      name: "@anthropic-ai/claude-code",
      version: "0.0.0-no-such-version",
      bin: "claude",
    } as const;
    await assert.rejects(
      install(missing, root),
      /installing @anthropic-ai\/claude-code@0\.0\.0-no-such-version with npm failed .*cannot run without it/s,
    );
    const left: string[] = [];
    for await (const entry of Deno.readDir(root)) left.push(entry.name);
    assert.deepEqual(left, [], "a failed install left files in the cache");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
