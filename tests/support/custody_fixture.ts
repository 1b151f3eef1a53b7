/** Shared set-up for the custody unit tests: a fake clock, fake renewers and a recorded vault. */
import { FakeClock } from "./fake_clock.ts";
import { FakeRenewers } from "./fake_renewers.ts";
import { Custody, type CustodyEvent, type CustodyOptions } from "../../src/custody/mod.ts";

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
