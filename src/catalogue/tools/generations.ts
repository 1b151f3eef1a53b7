/** Generations: prepared port allocations of a stack revision. */
import { z } from "zod";
import { pageInput, uuid } from "../shapes.ts";
import { generation } from "../records.ts";
import { get } from "../routes.ts";
import { pagedReadTool, readTool } from "../read_tool.ts";
import { Capability } from "../../daemon/capabilities.ts";

const CAPS = [Capability.stackActivations];

export const generationsList = pagedReadTool({
  name: "portreeve_generations_list",
  title: "List generations",
  capabilities: CAPS,
  description: "A stack's generations, oldest first.",
  input: z.strictObject({
    ...pageInput,
    stackId: uuid().optional(),
    state: z.enum(["valid", "stale"]).optional(),
  }),
  item: generation,
  route: get("/v1/stack-generations", z.array(generation)),
  readWhole: "portreeve_generation_get (id)",
  id: (g) => g.id,
});

export const generationGet = readTool({
  name: "portreeve_generation_get",
  title: "Get a generation",
  capabilities: CAPS,
  description: "One generation.",
  input: z.strictObject({ id: uuid() }),
  route: get("/v1/stack-generations/{generationId}", generation),
  params: (input) => ({ generationId: input.id }),
});
