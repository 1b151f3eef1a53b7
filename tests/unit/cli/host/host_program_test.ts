/** A host program's message reaches a person without its terminal colours (Gemini CLI's red). */
import assert from "node:assert/strict";
import { plain } from "../../../../src/cli/host/host_program.ts";

Deno.test("host program: its colours are taken out of what setup and doctor repeat", () => {
  assert.equal(
    plain("\x1b[31mError in settings.json: Expected double-quoted property name\x1b[0m"),
    "Error in settings.json: Expected double-quoted property name",
  );
  assert.equal(plain("\x1b[1;32m✓\x1b[0m portreeve"), "✓ portreeve");
});
