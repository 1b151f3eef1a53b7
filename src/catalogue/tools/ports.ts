/** Ports family (read side): the live inventory of development ports. */
import { z } from "zod";
import { absolutePath, nameFilter, pageInput, port } from "../shapes.ts";
import { classification, inventoryEntry } from "../records.ts";
import { get } from "../routes.ts";
import { pagedReadTool, readTool } from "../read_tool.ts";

export const portsList = pagedReadTool({
  name: "portreeve_ports_list",
  title: "List ports",
  detail: true,
  description: "Ports claimed, leased or listened on.",
  input: z.strictObject({
    ...pageInput,
    classification: classification.optional(),
    claimed: z.boolean().optional(),
    listening: z.boolean().optional(),
    project: nameFilter().optional(),
    workspace: absolutePath().optional(),
    component: nameFilter().optional(),
    endpoint: nameFilter().optional(),
    port: port().optional(),
  }),
  item: inventoryEntry,
  route: get("/v1/ports", z.array(inventoryEntry)),
  readWhole: "portreeve_port_inspect (port)",
  id: (e) => e.port,
});

export const portInspect = readTool({
  name: "portreeve_port_inspect",
  title: "Inspect a port",
  detail: true,
  description: "One port: claim, lease, listeners, owners.",
  input: z.strictObject({ port: port() }),
  route: get("/v1/ports/{port}", inventoryEntry),
});
