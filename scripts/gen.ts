/**
 * `deno task gen`: derives the served tools/list (src/catalogue/tools_list.json, pretty-printed
 * so a review shows what a change did to each tool) and the README's tool reference from the
 * tool definitions, and docs/compact-results.md from the compact rules. Tests fail when any
 * is stale.
 */
import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { listingText, listTools } from "../src/catalogue/describe.ts";
import { withReference } from "../src/catalogue/reference.ts";
import { compactResultsDoc } from "../src/catalogue/compact/doc.ts";

const listing = new URL("../src/catalogue/tools_list.json", import.meta.url);
await Deno.writeTextFile(listing, listingText(listTools(ALL_TOOLS)));
const readme = new URL("../README.md", import.meta.url);
await Deno.writeTextFile(readme, withReference(await Deno.readTextFile(readme)));
await Deno.mkdir(new URL("../docs/", import.meta.url), { recursive: true });
await Deno.writeTextFile(
  new URL("../docs/compact-results.md", import.meta.url),
  compactResultsDoc(),
);
