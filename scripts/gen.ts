/**
 * `deno task gen`: derives the served tools/list (src/catalogue/tools_list.json, pretty-printed
 * so a review shows what a change did to each tool), the README's tool reference and its table
 * of consequential routes, the effects map (docs/effects.md), the tables of docs/limits.md,
 * docs/errors.md's code tables and docs/compact-results.md, from the definitions, route
 * declarations, declared bounds, src/shared/error_codes.ts and the compact rules. Tests fail when any
 * of them is stale.
 */
import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { listingText, listTools } from "../src/results/describe.ts";
import { withReference } from "../src/catalogue/reference.ts";
import { effectsDocument, withEffectsTable } from "../src/catalogue/effects_map.ts";
import { compactResultsDoc } from "../src/results/compact/doc.ts";
import { withLimitTables } from "./limits_doc.ts";
import { withErrorTables } from "./error_docs.ts";

const docs = (name: string) => new URL(`../docs/${name}`, import.meta.url);
const listing = new URL("../src/catalogue/tools_list.json", import.meta.url);
await Deno.writeTextFile(listing, listingText(listTools(ALL_TOOLS)));
const readme = new URL("../README.md", import.meta.url);
await Deno.writeTextFile(
  readme,
  withEffectsTable(withReference(await Deno.readTextFile(readme))),
);
await Deno.writeTextFile(docs("effects.md"), effectsDocument());
await Deno.writeTextFile(
  docs("limits.md"),
  withLimitTables(await Deno.readTextFile(docs("limits.md"))),
);
await Deno.writeTextFile(
  docs("errors.md"),
  withErrorTables(await Deno.readTextFile(docs("errors.md"))),
);
await Deno.writeTextFile(docs("compact-results.md"), compactResultsDoc(ALL_TOOLS));
