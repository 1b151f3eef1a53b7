import { inOrder, ok, toolRig } from "../tests/support/scripted_daemon.ts";
import { post } from "../src/daemon/routes.ts";
