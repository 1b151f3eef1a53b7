/** Claims family (read side): durable port claims. */
import { z } from "zod";
import { absolutePath, nameFilter, pageInput, uuid } from "../shapes.ts";
import { claim } from "../records.ts";
import { get } from "../routes.ts";
import { pagedReadTool, readTool } from "../read_tool.ts";

export const claimsList = pagedReadTool({
  name: "portreeve_claims_list",
  title: "List claims",
  description: "Port claims; filters match exactly.",
  input: z.strictObject({
    ...pageInput,
    project: nameFilter().optional(),
    workspaceRoot: absolutePath().optional(),
    component: nameFilter().optional(),
    endpoint: nameFilter().optional(),
  }),
  item: claim,
  route: get("/v1/claims", z.array(claim)),
  readWhole: "portreeve_claim_get (id)",
  id: (c) => c.id,
});

export const claimGet = readTool({
  name: "portreeve_claim_get",
  title: "Get a claim",
  description: "One claim.",
  input: z.strictObject({ id: uuid() }),
  route: get("/v1/claims/{claimId}", claim),
  params: (input) => ({ claimId: input.id }),
});
