// StackDefinition: strict schema with defaults, cross-field rules, and the revision hash.
import { z } from "zod";
import { name128, portSchema } from "./schemas.ts";
import { canonicalJson, sha256Hex } from "./util.ts";

const allocationSchema = z.strictObject({
  preferredPort: portSchema.optional(),
  exactPort: portSchema.optional(),
}).refine((a) => a.preferredPort === undefined || a.exactPort === undefined, {
  message: "preferredPort and exactPort are mutually exclusive",
});

const endpointSchema = z.strictObject({
  transport: z.literal("tcp").default("tcp"),
  publish: z.boolean().default(true),
  required: z.boolean().default(true),
  allocation: allocationSchema.default({}),
  docker: z.strictObject({ containerPort: portSchema }).optional(),
});

const dependencySchema = z.strictObject({
  component: name128,
  endpoint: name128.default("default"),
  required: z.boolean().default(true),
});

const componentSchema = z.strictObject({
  endpoints: z.record(name128, endpointSchema).default({}),
  dependencies: z.record(name128, dependencySchema).default({}),
  docker: z.strictObject({ service: name128 }).optional(),
});

export const stackDefinitionSchema = z.strictObject({
  version: z.literal(1),
  project: name128,
  components: z.record(name128, componentSchema).refine((c) => Object.keys(c).length > 0, {
    message: "A stack needs at least one component",
  }),
}).superRefine((def, ctx) => {
  for (const [name, component] of Object.entries(def.components)) {
    for (const [endpointName, endpoint] of Object.entries(component.endpoints)) {
      if (endpoint.docker && !component.docker) {
        ctx.addIssue({
          code: "custom",
          path: ["components", name, "endpoints", endpointName, "docker"],
          message: "An endpoint with docker settings needs docker.service on its component",
        });
      }
    }
    for (const [alias, dep] of Object.entries(component.dependencies)) {
      const path = ["components", name, "dependencies", alias];
      const target = def.components[dep.component];
      if (!target) {
        ctx.addIssue({
          code: "custom",
          path: [...path, "component"],
          message: `Dependency names unknown component ${dep.component}`,
        });
        continue;
      }
      const endpoint = target.endpoints[dep.endpoint];
      if (!endpoint) {
        ctx.addIssue({
          code: "custom",
          path: [...path, "endpoint"],
          message: `Dependency names unknown endpoint ${dep.component}.${dep.endpoint}`,
        });
      } else if (!endpoint.publish) {
        ctx.addIssue({
          code: "custom",
          path: [...path, "endpoint"],
          message: `Dependency target ${dep.component}.${dep.endpoint} is not published`,
        });
      }
    }
  }
});

export type StackDefinition = z.output<typeof stackDefinitionSchema>;

export interface DefinitionIssue {
  code: string;
  message: string;
  path: string[];
}

type NormalizeResult =
  | { ok: true; definition: StackDefinition; revision: string }
  | { ok: false; issues: DefinitionIssue[] };

export function normalizeDefinition(input: unknown): NormalizeResult {
  const result = stackDefinitionSchema.safeParse(input);
  if (!result.success) {
    return {
      ok: false,
      issues: result.error.issues.map((issue) => ({
        code: "invalid_definition",
        message: issue.message,
        path: issue.path.map((p) => String(p)),
      })),
    };
  }
  return { ok: true, definition: result.data, revision: definitionRevision(result.data) };
}

function definitionRevision(definition: StackDefinition): string {
  return sha256Hex(canonicalJson(definition));
}

interface PublishedEndpoint {
  component: string;
  endpoint: string;
  required: boolean;
  preferredPort: number | null;
  exactPort: number | null;
}

/** Published endpoints in definition order; only these get claims and generation slots. */
export function publishedEndpoints(definition: StackDefinition): PublishedEndpoint[] {
  const out: PublishedEndpoint[] = [];
  for (const [component, spec] of Object.entries(definition.components)) {
    for (const [endpoint, e] of Object.entries(spec.endpoints)) {
      if (!e.publish) continue;
      out.push({
        component,
        endpoint,
        required: e.required,
        preferredPort: e.allocation.preferredPort ?? null,
        exactPort: e.allocation.exactPort ?? null,
      });
    }
  }
  return out;
}

/** Pretty file form written by stack-apply execute: two-space JSON plus a newline. */
export function documentText(definition: StackDefinition): string {
  return JSON.stringify(definition, null, 2) + "\n";
}
