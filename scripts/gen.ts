/**
 * `deno task gen`: derives the served tools/list (src/catalogue/tools_list.json, pretty-printed
 * so a review shows what a change did to each tool) and the generated parts of the docs: the
 * README's command synopsis, toolsets and consequential routes, docs/tools.md, the default views
 * in docs/results.md, the permission
 * flags in docs/confinement.md, docs/effects.md, the tables of docs/limits.md and
 * docs/errors.md, and CONTRIBUTING.md's table of budgets. Their sources: the tool definitions,
 * route declarations, declared bounds, src/shared/error_codes.ts, the host profiles, the
 * program's help, the permission set and tests/support/budgets.ts (whose session figures come
 * from the simulator, run in process). Tests fail when any of them is stale.
 */
import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { listTools } from "../src/results/describe.ts";
import { listingText } from "../src/results/listing.ts";
import { effectsDocument } from "../src/catalogue/effects_map.ts";
import { withLimitTables } from "./limits_doc.ts";
import { withErrorTables } from "./error_docs.ts";
import { withConfinementDoc, withReadmeBlocks, withResultsDoc, withToolsDoc } from "./gen_docs.ts";
import { withSection } from "./doc_blocks.ts";
import { budgetTable, catalogueFigures, sessionFigures } from "../tests/support/budgets.ts";

const file = (path: string) => new URL(`../${path}`, import.meta.url);
/** Rewrites `path` through `update`. */
async function rewrite(path: string, update: (text: string) => string): Promise<void> {
  await Deno.writeTextFile(file(path), update(await Deno.readTextFile(file(path))));
}

await Deno.writeTextFile(file("src/catalogue/tools_list.json"), listingText(listTools(ALL_TOOLS)));
await rewrite("README.md", withReadmeBlocks);
await rewrite("docs/tools.md", withToolsDoc);
await rewrite("docs/results.md", withResultsDoc);
await rewrite("docs/confinement.md", withConfinementDoc);
await Deno.writeTextFile(file("docs/effects.md"), effectsDocument());
await rewrite("docs/limits.md", withLimitTables);
await rewrite("docs/errors.md", withErrorTables);
// The budgets' figures replay the reference session against the simulator, where the test does.
const [catalogue, session] = [await catalogueFigures(), await sessionFigures()];
await rewrite(
  "CONTRIBUTING.md",
  (text) => withSection(text, "budgets", budgetTable({ ...catalogue, ...session })),
);
