/**
 * What a daemon route does to the world, declared with the route itself (routes.ts), so the
 * client can compute the effect of each concrete request before sending it (gate.ts), the
 * tool annotations can say the truth, and `deno task gen` can print the effects map.
 *
 * - read: changes nothing a person cares about (reads may sweep expired leases);
 * - coordinate: leases, activations, launcher operations, receipts — the daemon's own
 *   bookkeeping that agents share;
 * - consequential: signals a process, deletes records, writes a file, moves a claim or
 *   changes settings; reaches the daemon only with a proof from the approval module.
 *
 * An effect may depend on one body field (e.g. acquire's `allocation.replacementPolicy`):
 * the declaration lists every value's effect; a value it does not list counts as the worst
 * of them, so a new value is refused rather than guessed harmless.
 */
import { isObject } from "../shared/json.ts";

/** The kinds of consequence a person approves. */
const CONSEQUENCES = [
  "signals a process",
  "deletes records",
  "writes a file",
  "moves a claim",
  "changes settings",
] as const;
type Consequence = typeof CONSEQUENCES[number];

export interface ConsequentialEffect {
  level: "consequential";
  consequences: readonly Consequence[];
  what: string;
}

export type Effect =
  | { level: "read"; what: string }
  | { level: "coordinate"; what: string }
  | ConsequentialEffect;

/** An effect decided by the value of one body field. */
interface ValueRule {
  /** The field's dotted path in the request body, e.g. `allocation.replacementPolicy`. */
  field: string;
  /** The value the daemon assumes when the field is absent. */
  absent: string;
  cases: Readonly<Record<string, Effect>>;
}

export type EffectDeclaration = Effect | ValueRule;

export function reads(what = "reads only"): Effect {
  return { level: "read", what };
}

export function coordinates(what: string): Effect {
  return { level: "coordinate", what };
}

export function consequential(
  consequences: readonly Consequence[],
  what: string,
): ConsequentialEffect {
  return { level: "consequential", consequences, what };
}

/** An effect that depends on the value of `field` (see `ValueRule`). */
export function dependsOn(
  field: string,
  absent: string,
  cases: Record<string, Effect>,
): ValueRule {
  if (!(absent in cases)) throw new Error(`${field}: the absent value ${absent} has no case`);
  return { field, absent, cases };
}

export function isValueRule(declaration: EffectDeclaration): declaration is ValueRule {
  return "field" in declaration;
}

/** The effect of one concrete request body under `declaration`. */
export function effectOf(declaration: EffectDeclaration, body: unknown): Effect {
  if (!isValueRule(declaration)) return declaration;
  const value = valueAt(body, declaration.field);
  const key = value === undefined ? declaration.absent : value;
  if (typeof key === "string" && Object.hasOwn(declaration.cases, key)) {
    return declaration.cases[key];
  }
  return worstOf(declaration);
}

/** Every effect a route can have, whatever its body says. */
export function possibleEffects(declaration: EffectDeclaration): Effect[] {
  if (!isValueRule(declaration)) return [declaration];
  return [...new Set(Object.values(declaration.cases))];
}

/** Whether any request to a route so declared can be consequential. */
export function canBeConsequential(declaration: EffectDeclaration): boolean {
  return possibleEffects(declaration).some((effect) => effect.level === "consequential");
}

const SEVERITY = { read: 0, coordinate: 1, consequential: 2 } as const;

/** A value the rule does not know is treated as the most severe value it does. */
function worstOf(rule: ValueRule): Effect {
  const effects = Object.values(rule.cases);
  const top = Math.max(...effects.map((effect) => SEVERITY[effect.level]));
  const severest = effects.filter((effect) => SEVERITY[effect.level] === top);
  if (top < SEVERITY.consequential) return severest[0];
  const consequences = new Set(
    severest.flatMap((effect) => effect.level === "consequential" ? effect.consequences : []),
  );
  return consequential(
    [...consequences],
    `an unlisted ${rule.field} value, treated as the worst listed one`,
  );
}

function valueAt(body: unknown, field: string): unknown {
  let at: unknown = body;
  for (const key of field.split(".")) {
    if (!isObject(at)) return undefined;
    at = at[key];
  }
  return at;
}
