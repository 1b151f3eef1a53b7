/** Generations: prepared port allocations of a stack revision. */
import { z } from "zod";
import { generation, pageInput, uuid } from "../shapes.ts";
import { get } from "../routes.ts";
import { pagedReadTool, readTool } from "../read_tool.ts";
import { pageSummary } from "../../results/pagination.ts";
import { Capability } from "../../daemon/capabilities.ts";

const CAPS = [Capability.stackActivations];

export const generationsList = pagedReadTool({
  name: "portreeve_generations_list",
  title: "List generations",
  capabilities: CAPS,
  description: "Prepared generations, oldest first.",
  input: z.strictObject({
    ...pageInput,
    stackId: uuid().optional(),
    state: z.enum(["valid", "stale"]).optional(),
  }),
  item: generation,
  route: get("/v1/stack-generations", z.array(generation)),
  readWhole: "portreeve_generation_get (id)",
  key: (g) => [g.createdAt, g.id],
  summary: ({ items, page }) =>
    pageSummary("generation", items, page, (g) => `${g.id.slice(0, 8)} ${g.state}`),
});

export const generationGet = readTool({
  name: "portreeve_generation_get",
  title: "Get a generation",
  capabilities: CAPS,
  description: "One generation: revision, state and its endpoints' ports.",
  input: z.strictObject({ id: uuid() }),
  route: get("/v1/stack-generations/{generationId}", generation),
  params: (input) => ({ generationId: input.id }),
  summary: (g) =>
    `Generation ${g.id.slice(0, 8)} is ${g.state}: ${
      g.endpoints.map((e) => `${e.component}.${e.endpoint}=${e.port}`).join(", ")
    }.`,
});
