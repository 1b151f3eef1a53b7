/**
 * `deno task gen`: derives the served tools/list (src/catalogue/tools_list.json, pretty-printed
 * so a review shows what a change did to each tool) and the README's tool reference from the
 * tool definitions, and docs/errors.md's code tables from src/error_codes.ts. Tests fail when
 * any is stale.
 */
import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { listingText, listTools } from "../src/catalogue/describe.ts";
import { withReference } from "../src/catalogue/reference.ts";
import { withErrorTables } from "./error_docs.ts";

const listing = new URL("../src/catalogue/tools_list.json", import.meta.url);
await Deno.writeTextFile(listing, listingText(listTools(ALL_TOOLS)));
const readme = new URL("../README.md", import.meta.url);
await Deno.writeTextFile(readme, withReference(await Deno.readTextFile(readme)));
const errors = new URL("../docs/errors.md", import.meta.url);
await Deno.writeTextFile(errors, withErrorTables(await Deno.readTextFile(errors)));
