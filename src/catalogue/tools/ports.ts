/** Ports family (read side): the live inventory of development ports. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { absolutePath, classification, inventoryEntry, page, pageInput, port } from "../shapes.ts";
import { read, readPage } from "../daemon_calls.ts";
import { pageSummary } from "../pagination.ts";

type Entry = z.output<typeof inventoryEntry>;

export const portsList = defineTool({
  name: "portreeve_ports_list",
  title: "List ports",
  kind: "read",
  description:
    "List known ports (claimed, leased, running or listened on) with fresh listener evidence. Filters match exactly.",
  input: z.strictObject({
    ...pageInput,
    classification: classification.optional(),
    claimed: z.boolean().optional(),
    listening: z.boolean().optional(),
    project: z.string().optional(),
    workspace: absolutePath().optional(),
    component: z.string().optional(),
    endpoint: z.string().optional(),
    port: port().optional(),
  }),
  output: page(inventoryEntry),
  call: (ctx, input) => readPage<Entry>(ctx, "/v1/ports", "ports", input, (e) => [e.port]),
  summary: ({ items, page }) =>
    pageSummary("port", items, page, (e) => `${e.port} ${e.classification}`, 8),
});

export const portInspect = defineTool({
  name: "portreeve_port_inspect",
  title: "Inspect a port",
  kind: "read",
  description:
    "Everything known about one port: claim, pending lease, run, Docker publication, listeners and their ownership.",
  input: z.strictObject({ port: port() }),
  output: inventoryEntry,
  call: async (ctx, { port }) => await read(ctx, `/v1/ports/${port}`) as Entry,
  summary: (e) =>
    `Port ${e.port} is ${e.classification}; ${e.listeners.length} listener(s)${
      e.claim ? ", claimed" : ""
    }${e.lease ? ", lease pending" : ""}.`,
});
