/** Hosts for tests: one that cannot ask, and ones whose person answers in a set way. */
import type { HostChannel } from "../../src/shared/host_channel.ts";

/** A host that cannot ask (a client without elicitation). */
export const NO_HOST_CHANNEL: HostChannel = { canAsk: false };

/** A person who approves every question (the default mode, on a host that can ask). */
export const APPROVING_HOST: HostChannel = {
  canAsk: true,
  ask: () => Promise.resolve({ action: "accept", content: { approve: true } }),
};

/**
 * A host that can ask, keeping every question it puts to its person, who answers `approve`
 * to each; or, with "all but the last", approves every part of a question asked in parts (its
 * field's title says how many) and declines the last, so they see every part and nothing is
 * sent.
 */
export function askingPerson(approve: boolean | "all but the last") {
  const questions: string[] = [];
  const host: HostChannel = {
    canAsk: true,
    ask: (form) => {
      questions.push(form.message);
      const of = / of (\d+) /.exec(form.requestedSchema.properties.approve.title)?.[1];
      const yes = approve === "all but the last"
        ? of !== undefined && Number(of) > questions.length
        : approve;
      return Promise.resolve(
        yes ? { action: "accept", content: { approve: true } } : { action: "decline" },
      );
    },
  };
  return { host, questions };
}
