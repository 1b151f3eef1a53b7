/**
 * `deno task gen`: derives the served tools/list (src/catalogue/tools_list.json, pretty-printed
 * so a review shows what a change did to each tool), the README's tool reference and its table
 * of consequential routes, the effects map (docs/effects.md), the tables of docs/limits.md and
 * docs/errors.md's code tables, from the definitions, route declarations, declared bounds and
 * src/error_codes.ts. Tests fail when any of them is stale.
 */
import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { listingText, listTools } from "../src/catalogue/describe.ts";
import { withReference } from "../src/catalogue/reference.ts";
import { effectsDocument, withEffectsTable } from "../src/catalogue/effects_map.ts";
import { withLimitTables } from "./limits_doc.ts";
import { withErrorTables } from "./error_docs.ts";

const listing = new URL("../src/catalogue/tools_list.json", import.meta.url);
await Deno.writeTextFile(listing, listingText(listTools(ALL_TOOLS)));
const readme = new URL("../README.md", import.meta.url);
await Deno.writeTextFile(
  readme,
  withEffectsTable(withReference(await Deno.readTextFile(readme))),
);
await Deno.writeTextFile(new URL("../docs/effects.md", import.meta.url), effectsDocument());
const limits = new URL("../docs/limits.md", import.meta.url);
await Deno.writeTextFile(limits, withLimitTables(await Deno.readTextFile(limits)));
const errors = new URL("../docs/errors.md", import.meta.url);
await Deno.writeTextFile(errors, withErrorTables(await Deno.readTextFile(errors)));
