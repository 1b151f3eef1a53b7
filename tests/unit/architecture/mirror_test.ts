/**
 * Tests mirror src/, as CONTRIBUTING.md states it: the tests of `src/<path>.ts` are in
 * `tests/unit/<path>_test.ts`. Every unit test file either mirrors a source file that way, or
 * checks the clone (tests/unit/repo/) or the code's shape (tests/unit/architecture/), or is a
 * test across many files listed in CROSS_FILE with what it walks. In the rooms listed in
 * WHOLLY_MIRRORED every source file has its test file; elsewhere a module may be tested through
 * the one that uses it.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "../../support/source_text.ts";

/** Rooms of src/ where every file has a test file of its own. */
const WHOLLY_MIRRORED = ["catalogue/tools", "custody"];

/** Unit test files that test across many source files, and what each walks. */
export const CROSS_FILE: Readonly<Record<string, string>> = {
  "agent_facing_text_test.ts": "every text an agent reads, for advice that acts on the machine",
  "catalogue/consequential_catalogue_test.ts": "the receipt tools as advertised, every stem",
  "catalogue/effects_walk_test.ts": "every tool × enum value × approval situation",
  "catalogue/generated_test.ts": "the served tools/list against every definition",
  "catalogue/give_back_walk_test.ts":
    "every route whose answer hands over a credential, cancelled while the daemon has it",
  "catalogue/input_bounds_test.ts": "every tool's input schema, for unbounded values",
  "catalogue/parity_test.ts": "every tool of the reference bridge, kept",
  "catalogue/question_property_test.ts":
    "every path that puts a question to a person, with hostile values",
  "catalogue/recipe_test.ts": "every family file against CONTRIBUTING.md's recipe",
  "cli/install_walk_test.ts": "every change install and uninstall make, stopped at each (install/)",
  "cli/installer_test.ts": "the installer's bookkeeping across install/ (see install/)",
  "cli/launcher_site_test.ts": "every kind of path at the socket, launcher and locateSocket alike",
  "cli/npm_package_test.ts":
    "the npm package's manifest (scripts/npm_package.ts) against the project",
  "cli/launcher_test.ts": "the launcher against serve's own socket rules, every source",
  "cli/uninstall_report_test.ts":
    "what uninstall says for every outcome (install/uninstall_report.ts)",
  "custody/arrival_test.ts": "custody's arrival rule for leases and activations, on a fake clock",
  "daemon/client_lanes_test.ts": "the client, its slots and lanes against a paced daemon",
  "daemon/no_resend_test.ts": "every way a connection breaks, for reads and for changes",
  "daemon/too_long_test.ts": "every way a request can be too long to send",
  "profiles/format_test.ts": "the profiles' building blocks: quoting, TOML, templates",
  "profiles/golden_test.ts": "every host's human output, byte for byte",
  "profiles/install_test.ts": "config for every kind of installation",
  "profiles/published_format_test.ts": "every profile against its host's published format",
  "profiles/tool_timeouts_test.ts": "every host's own call deadline against the bridge's bound",
  "profiles/host_treatments_test.ts":
    "every profile's result limit and flagged errors, through serve's client names to the bridge",
  "results/answer_bounds_test.ts": "every tool's answers, at their bounds",
  "results/budget_test.ts": "the context every tool costs a model",
  "results/compact_roundtrip_test.ts": "every tool's compact data, expanded back",
  "results/error_views_test.ts": "every error the bridge makes, as each host shows it",
  "simulator/fidelity_test.ts": "the simulator against the recorded real daemon",
  "simulator/lease_start_test.ts": "the simulator's lease expiry against a serial daemon's queue",
  "simulator/realism_test.ts": "simulator behaviour checked against the real daemon",
  "simulator/routes_test.ts": "the simulator's mutation routes",
  "simulator/transport_test.ts": "the simulator's envelopes, negotiation and faults",
  "transport/flow_limits_doc_test.ts": "docs/memory.md against the transport's bounds",
  "transport/parse_bound_test.ts":
    "the parse-cost bound through every message kind of the transport",
  "transport/stdio_flow_test.ts": "flow control across the stdio transport's parts",
};

const ROOT = new URL("../../../", import.meta.url);
const exists = (path: string) => Deno.stat(new URL(path, ROOT)).then(() => true, () => false);

/** `*_test.ts` files under tests/unit/, relative to it. */
async function unitTests(dir = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(`tests/unit/${dir}`, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) found.push(...await unitTests(`${path}/`));
    else if (entry.name.endsWith("_test.ts")) found.push(path);
  }
  return found.sort();
}

/** Why `test` (relative to tests/unit/) breaks the rule; undefined when it keeps it. */
export async function misplaced(test: string): Promise<string | undefined> {
  if (/^(repo|architecture)\//.test(test)) return undefined;
  const mirrors = await exists(`src/${test.replace(/_test\.ts$/, ".ts")}`);
  if (mirrors && Object.hasOwn(CROSS_FILE, test)) return "mirrors a source file, yet is listed";
  if (mirrors || Object.hasOwn(CROSS_FILE, test)) return undefined;
  return "mirrors no source file and is not listed as a test across files";
}

Deno.test("every unit test file mirrors a source file, or is listed with what it walks", async () => {
  const wrong = [];
  for (const test of await unitTests()) {
    const why = await misplaced(test);
    if (why) wrong.push(`tests/unit/${test}: ${why}`);
  }
  assert.deepEqual(wrong, []);
  for (const listed of Object.keys(CROSS_FILE)) {
    assert.ok(await exists(`tests/unit/${listed}`), `listed, but gone: ${listed}`);
  }
});

for (const folder of WHOLLY_MIRRORED) {
  Deno.test(`every file of src/${folder}/ has its test in tests/unit/${folder}/`, async () => {
    const files = await sourceFiles(fileURLToPath(new URL(`src/${folder}/`, ROOT)));
    assert.ok(files.length > 0, `src/${folder} has files`);
    const missing = [];
    for (const file of files) {
      if (!await exists(`tests/unit/${folder}/${file.replace(/\.ts$/, "_test.ts")}`)) {
        missing.push(`src/${folder}/${file}`);
      }
    }
    assert.deepEqual(missing, [], "source files without a test file beside the others");
  });
}

Deno.test("mirror check: what it must refuse, it refuses", async () => {
  assert.equal(await misplaced("custody/vault_test.ts"), undefined);
  assert.equal(await misplaced("repo/docs_test.ts"), undefined);
  assert.match((await misplaced("custody/elsewhere_test.ts"))!, /mirrors no source file/);
  assert.equal(await misplaced("catalogue/effects_walk_test.ts"), undefined);
});
