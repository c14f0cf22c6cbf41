/**
 * The service the live tests talk to: `MAJLIS_URL` when given (the pytest wrapper,
 * tests/clients/test_typescript_client.py, passes the one it started), else a
 * `python -m service.run` of its own (scripts/serve.py; `MAJLIS_PYTHON` names the Python
 * with the service's dependencies, default python3), stopped when the tests end.
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface Service {
  url: string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 120_000;

export async function startService(): Promise<Service> {
  const given = process.env["MAJLIS_URL"];
  if (given) return { url: given.replace(/\/+$/, ""), stop: async () => undefined };
  const python = process.env["MAJLIS_PYTHON"] ?? "python3";
  const script = fileURLToPath(new URL("../../scripts/serve.py", import.meta.url)); // from dist/test
  const child = spawn(python, [script], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => child.kill("SIGTERM"), START_TIMEOUT_MS);
  try {
    const [line] = (await Promise.race([
      once(lines, "line"),
      once(child, "exit").then(([code]) => {
        throw new Error(`${python} ${script} exited (${code}) before the service was ready`);
      }),
    ])) as [string];
    return {
      url: line.trim(),
      stop: async () => {
        const exited = once(child, "exit");
        child.stdin.end(); // serve.py stops the service when its input closes
        await exited;
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
