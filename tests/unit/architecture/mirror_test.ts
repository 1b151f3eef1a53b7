/**
 * Tests mirror src/, as CONTRIBUTING.md states it: the tests of `src/X/Y.ts` are in
 * `tests/unit/X/Y_test.ts`, and nowhere else. Every unit test file is either that mirror of a
 * source file, or a check on the clone (tests/unit/repo/) or on the code's shape
 * (tests/unit/architecture/), or a walk: a test of one promise over many things (every tool,
 * every route, every host), listed in WALKS with what it walks and the source file that defines
 * those things, in the walk's own room. In the rooms listed in WHOLLY_MIRRORED every source file
 * has its test file; elsewhere a module may be tested through the one that uses it.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "../../support/source_text.ts";

/** Rooms of src/ where every file has a test file of its own. */
const WHOLLY_MIRRORED = ["bridge", "catalogue/tools", "custody"];

/** A walk: what it walks, and the source file (in its own room) that defines what it walks. */
interface Walk {
  walks: string;
  of: string;
}

/** Unit test files that walk one promise over many things, each with what and where. */
export const WALKS: Readonly<Record<string, Walk>> = {
  "catalogue/agent_facing_text_test.ts": {
    walks: "every text an agent reads, for advice that acts on the machine",
    of: "catalogue/index.ts",
  },
  "catalogue/consequential_catalogue_test.ts": {
    walks: "the receipt tools as advertised, every stem",
    of: "catalogue/tools/consequential/receipts.ts",
  },
  "catalogue/effects_walk_test.ts": {
    walks: "every tool × enum value × approval situation, and every route answering 2xx",
    of: "catalogue/effects_map.ts",
  },
  "catalogue/give_back_walk_test.ts": {
    walks: "every route whose answer hands over a credential, cancelled while the daemon has it",
    of: "catalogue/routes.ts",
  },
  "catalogue/generated_test.ts": {
    walks: "the served tools/list against every definition",
    of: "catalogue/index.ts",
  },
  "catalogue/parity_test.ts": {
    walks: "every tool of the reference bridge, kept",
    of: "catalogue/reference.ts",
  },
  "catalogue/question_property_test.ts": {
    walks: "every path that puts a question to a person, with hostile values",
    of: "catalogue/question.ts",
  },
  "catalogue/recipe_test.ts": {
    walks: "every family file against CONTRIBUTING.md's recipe",
    of: "catalogue/define.ts",
  },
  "cli/install_walk_test.ts": {
    walks: "every change install and uninstall make, stopped at each",
    of: "cli/install.ts",
  },
  "custody/arrival_test.ts": {
    walks: "custody's arrival rule for every kind of grant, on a fake clock",
    of: "custody/vault.ts",
  },
  "daemon/client_lanes_test.ts": {
    walks: "the client, its slots and lanes against a paced daemon",
    of: "daemon/client.ts",
  },
  "daemon/no_resend_test.ts": {
    walks: "every way a connection breaks, for reads and for changes",
    of: "daemon/client.ts",
  },
  "daemon/too_long_test.ts": {
    walks: "every way a request can be too long to send",
    of: "daemon/client.ts",
  },
  "profiles/format_test.ts": {
    walks: "the profiles' building blocks: quoting, TOML, templates",
    of: "profiles/render.ts",
  },
  "profiles/golden_test.ts": {
    walks: "every host's human output, byte for byte",
    of: "profiles/render.ts",
  },
  "profiles/install_test.ts": {
    walks: "config for every kind of installation",
    of: "profiles/render.ts",
  },
  "profiles/tool_timeouts_test.ts": {
    walks: "every host's own call deadline against the bridge's bound",
    of: "profiles/profile.ts",
  },
  "profiles/published_format_test.ts": {
    walks: "every profile against its host's published format",
    of: "profiles/profile.ts",
  },
  "results/answer_bounds_test.ts": {
    walks: "every tool's answers, at their bounds",
    of: "results/result.ts",
  },
  "results/budget_test.ts": {
    walks: "the context every tool costs a model",
    of: "results/describe.ts",
  },
  "results/compact_roundtrip_test.ts": {
    walks: "every tool's compact data, expanded back",
    of: "results/compact/mod.ts",
  },
  "results/error_views_test.ts": {
    walks: "every error the bridge makes, as each host shows it",
    of: "results/result.ts",
  },
  "simulator/fidelity_test.ts": {
    walks: "the simulator against the recorded real daemon",
    of: "simulator/mod.ts",
  },
  "simulator/lease_start_test.ts": {
    walks: "the simulator's lease expiry against a serial daemon's queue",
    of: "simulator/routes/leases.ts",
  },
  "simulator/realism_test.ts": {
    walks: "simulator behaviour checked against the real daemon",
    of: "simulator/mod.ts",
  },
  "simulator/routes_test.ts": {
    walks: "the simulator's mutation routes",
    of: "simulator/routes/mod.ts",
  },
  "transport/flow_limits_doc_test.ts": {
    walks: "docs/memory.md against every bound of the transport",
    of: "transport/stdio_transport.ts",
  },
  "transport/parse_bound_test.ts": {
    walks: "the parse-cost bound through every message kind of the transport",
    of: "transport/frame_scan.ts",
  },
  "transport/stdio_flow_test.ts": {
    walks: "flow control across the stdio transport's parts",
    of: "transport/stdio_transport.ts",
  },
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

const roomOf = (path: string) => path.split("/")[0];

/** Why `test` (relative to tests/unit/) breaks the rule; undefined when it keeps it. */
export async function misplaced(
  test: string,
  walks: Readonly<Record<string, Walk>> = WALKS,
): Promise<string | undefined> {
  if (/^(repo|architecture)\//.test(test)) return undefined;
  if (!test.includes("/")) return "sits outside every room";
  const mirrors = await exists(`src/${test.replace(/_test\.ts$/, ".ts")}`);
  const walk = Object.hasOwn(walks, test) ? walks[test] : undefined;
  if (mirrors) return walk ? "mirrors a source file, yet is listed as a walk" : undefined;
  if (!walk) return "mirrors no source file and is not listed as a walk";
  if (!await exists(`src/${walk.of}`)) return `walks what src/${walk.of} defines, which is gone`;
  if (roomOf(walk.of) !== roomOf(test)) return `walks src/${walk.of}, in another room`;
  return undefined;
}

Deno.test("every unit test file mirrors a source file, or is a walk listed with what it walks", async () => {
  const tests = await unitTests();
  const wrong = [];
  for (const test of tests) {
    const why = await misplaced(test);
    if (why) wrong.push(`tests/unit/${test}: ${why}`);
  }
  assert.deepEqual(wrong, []);
  for (const listed of Object.keys(WALKS)) {
    assert.ok(tests.includes(listed), `listed, but gone: ${listed}`);
  }
  // Most tests are a file's own: walks are the exception.
  const mirrored = tests.filter((t) => !/^(repo|architecture)\//.test(t) && !(t in WALKS));
  assert.ok(mirrored.length > 2 * Object.keys(WALKS).length, `${mirrored.length} mirrored`);
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
  assert.equal(await misplaced("catalogue/effects_walk_test.ts"), undefined);
  assert.match((await misplaced("custody/elsewhere_test.ts"))!, /mirrors no source file/);
  assert.match((await misplaced("loose_test.ts"))!, /outside every room/);
  const walk = (of: string) => ({ "daemon/every_x_test.ts": { walks: "x", of } });
  assert.match((await misplaced("daemon/every_x_test.ts", walk("daemon/gone.ts")))!, /is gone/);
  assert.match(
    (await misplaced("daemon/every_x_test.ts", walk("catalogue/index.ts")))!,
    /in another room/,
  );
  assert.match(
    (await misplaced("daemon/routes_test.ts", {
      "daemon/routes_test.ts": { walks: "x", of: "daemon/routes.ts" },
    }))!,
    /yet is listed as a walk/,
  );
});
