import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { listingText, listTools } from "../../../src/results/describe.ts";
import { compactResultsDoc } from "../../../src/results/compact/doc.ts";

Deno.test("the served tools/list is derived from the definitions (run `deno task gen`)", async () => {
  const served = await Deno.readTextFile(
    new URL("../../../src/catalogue/tools_list.json", import.meta.url),
  );
  // Byte for byte, so the reviewed file is exactly what is served.
  assert.equal(served, listingText(listTools(ALL_TOOLS)));
});

Deno.test("docs/compact-results.md is derived from the rules (run `deno task gen`)", async () => {
  const written = await Deno.readTextFile(
    new URL("../../../docs/compact-results.md", import.meta.url),
  );
  // As `deno task gen` leaves it: generated, then formatted.
  const fmt = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    stdin: "piped",
    stdout: "piped",
    cwd: new URL("../../../", import.meta.url),
  }).spawn();
  const writer = fmt.stdin.getWriter();
  await writer.write(new TextEncoder().encode(compactResultsDoc(ALL_TOOLS)));
  await writer.close();
  const formatted = new TextDecoder().decode((await fmt.output()).stdout);
  assert.equal(written, formatted);
});
