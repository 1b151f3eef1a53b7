/** Claims family (read side): durable port claims. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { absolutePath, claim, page, pageInput, uuid } from "../shapes.ts";
import { id, read, readPage } from "../daemon_calls.ts";
import { pageSummary } from "../pagination.ts";

type Claim = z.output<typeof claim>;

export const claimsList = defineTool({
  name: "portreeve_claims_list",
  title: "List claims",
  kind: "read",
  description:
    "List durable port claims by project, workspace, component and endpoint. Filters match exactly.",
  input: z.strictObject({
    ...pageInput,
    project: z.string().optional(),
    workspaceRoot: absolutePath().optional(),
    component: z.string().optional(),
    endpoint: z.string().optional(),
  }),
  output: page(claim),
  call: (ctx, input) =>
    readPage<Claim>(ctx, "/v1/claims", "claims", input, (c) => [
      c.identity.project,
      c.identity.workspaceRoot,
      c.identity.component,
      c.identity.endpoint,
      c.id,
    ]),
  summary: ({ items, page }) =>
    pageSummary(
      "claim",
      items,
      page,
      (c) =>
        `${c.identity.project}/${c.identity.component}.${c.identity.endpoint}→${
          c.assignedPort ?? "none"
        }`,
    ),
});

export const claimGet = defineTool({
  name: "portreeve_claim_get",
  title: "Get a claim",
  kind: "read",
  description: "Read one claim: identity, mode and assigned, preferred or exact port.",
  input: z.strictObject({ id: uuid() }),
  output: claim,
  call: async (ctx, input) => await read(ctx, `/v1/claims/${id(input.id)}`) as Claim,
  summary: (c) =>
    `Claim ${c.identity.project}/${c.identity.component}.${c.identity.endpoint} (${c.mode}) holds port ${
      c.assignedPort ?? "none"
    }.`,
});
