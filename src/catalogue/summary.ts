/**
 * What a preview tells the agent in `summary` and `blockers`: sentences of the bridge's words
 * with the values as the agent or the daemon gave them, short enough that every host shows the
 * summary whole (catalogue.ts never cuts it): a value longer than SUMMARY_VALUE_MAX keeps its
 * head and tail, a list names its first MAX_LIST_ITEMS items and counts the rest. The evidence
 * in full stands beside it in the data. (The person's question is question.ts's.)
 */

import { ANSWER_BOUNDS } from "../shared/answer_bounds.ts";

type Value = string | number | Fragment | List;

/** Longest value a summary quotes whole (characters); a longer one keeps its head and tail. */
export const SUMMARY_VALUE_MAX = 64;
/** Most list items a summary names; the rest are counted. */
export const MAX_LIST_ITEMS = 3;
/** The longest summary any preview writes, in characters (the property test walks them). */
export const SUMMARY_MAX = ANSWER_BOUNDS.question.max;

/** Items shown with a separator: the first MAX_LIST_ITEMS of them, and how many more. */
class List {
  constructor(readonly items: readonly Value[], readonly separator = ", ") {}
}

/** Bridge words and the values between them, read by the agent. */
export class Fragment {
  constructor(readonly words: readonly string[], readonly values: readonly Value[]) {}

  plain(): string {
    let out = this.words[0];
    this.values.forEach((value, i) => out += shown(value) + this.words[i + 1]);
    return out;
  }
}

/** `say\`Reclaim port ${port} with ${policy}.\``: a sentence for the agent. */
export function say(words: TemplateStringsArray, ...values: Value[]): Fragment {
  return new Fragment(words, values);
}

/** `items` joined by `separator`; the first MAX_LIST_ITEMS are named, the rest counted. */
export function list(items: readonly Value[], separator = ", "): List {
  return new List(items, separator);
}

function shown(value: Value): string {
  if (value instanceof Fragment) return value.plain();
  if (value instanceof List) {
    const named = value.items.slice(0, MAX_LIST_ITEMS).map(shown).join(value.separator);
    const more = value.items.length - MAX_LIST_ITEMS;
    return more > 0 ? `${named}${value.separator}and ${more} more` : named;
  }
  return short(String(value));
}

/** `value`, or its head and tail around `…` when longer than SUMMARY_VALUE_MAX characters. */
function short(value: string): string {
  const chars = Array.from(value);
  if (chars.length <= SUMMARY_VALUE_MAX) return value;
  // A path keeps its file name: a third of the room is the tail's.
  const tail = Math.floor(SUMMARY_VALUE_MAX / 3);
  const head = SUMMARY_VALUE_MAX - tail - 1;
  return `${chars.slice(0, head).join("")}…${chars.slice(-tail).join("")}`;
}
