/** Hosts that can ask, with a person who answers every question the same way. */
import type { HostChannel } from "../../src/shared/host_channel.ts";

/** A person who approves every question (the default mode, on a host that can ask). */
export const APPROVING_HOST: HostChannel = {
  canAsk: true,
  ask: () => Promise.resolve({ action: "accept", content: { approve: true } }),
};
