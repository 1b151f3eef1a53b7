/** Shared set-up for the custody unit tests: a fake clock, fake renewers and a recorded vault. */
import { FakeClock } from "./fake_clock.ts";
import { FakeRenewers } from "./fake_renewers.ts";
import {
  CredentialUnavailableError,
  Custody,
  type CustodyEvent,
  type CustodyOptions,
} from "../../src/custody/mod.ts";

/** A token of a real lease token's length (43 base64url characters). */
export const T = "t".repeat(43);

export function setupCustody(options: Omit<CustodyOptions, "clock" | "renewers"> = {}) {
  const clock = new FakeClock();
  const renewers = new FakeRenewers(clock);
  const events: CustodyEvent[] = [];
  const custody = new Custody({ clock, renewers, onEvent: (e) => events.push(e), ...options });
  return { clock, renewers, custody, events, t0: clock.now() };
}

/** Launcher operation "O1": deadline 30 s after `t0`, renewal due every 10 s. */
export function holdLauncherO1(
  custody: Custody,
  t0: number,
  overrides: { credential?: string; deadlineAt?: number } = {},
) {
  return custody.holdLauncher({
    operationId: "O1",
    credential: T,
    deadlineAt: t0 + 30_000,
    renewAfterMilliseconds: 10_000,
    ...overrides,
  });
}

/** Activation "A1" holding leases "L1" and "L2", both with 15 s left after `t0`. */
export function holdActivationA1(custody: Custody, t0: number) {
  return custody.holdActivation("A1", [
    { leaseId: "L1", token: T + "1", expiresAt: t0 + 15_000, component: "a", endpoint: "x" },
    { leaseId: "L2", token: T + "2", expiresAt: t0 + 15_000, component: "b", endpoint: "x" },
  ]);
}

/** Whether an error says its credential lapsed: unavailable, naming `code` and `at`. */
export const lapsedWith = (code: string, at: number) => (e: unknown) =>
  e instanceof CredentialUnavailableError && e.renewalFailure?.code === code &&
  e.renewalFailure.at === at && e.message.includes("could no longer be renewed") &&
  e.message.includes(code) && e.message.includes(new Date(at).toISOString());
