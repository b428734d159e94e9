// The conformance suite's client under test: it maps the scenario the suite names (in
// MCP_CONFORMANCE_SCENARIO, with MCP_CONFORMANCE_CONTEXT for what a user would have been given,
// such as client credentials) to the `tooldef` command a user would type, runs it against the
// server URL the suite appends, and exits with its status. It does no MCP or OAuth itself: the
// protocol is tooldef's, and the sign-in "browser" (browser.mjs) only follows the redirects a
// browser would.
//
// Usage (by the suite): node adapter.mjs SERVER_URL; TOOLDEF_BIN names the tooldef binary.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const tooldef = process.env.TOOLDEF_BIN;
if (!tooldef || !url) {
  console.error("adapter: usage: TOOLDEF_BIN=PATH node adapter.mjs SERVER_URL");
  process.exit(2);
}

// Each run starts with an empty token cache, as a user who never signed in to this server.
const home = mkdtempSync(join(tmpdir(), "tooldef-conformance-"));
const env = { ...process.env, XDG_CONFIG_HOME: home };
delete env.TOOLDEF_BEARER_TOKEN;
delete env.TOOLDEF_CLIENT_SECRET;
delete env.TOOLDEF_IDP_ID_TOKEN;
delete env.TOOLDEF_IDP_CLIENT_SECRET;

// `--auth-browser` is split at spaces: node and the script are given by paths without any.
const browser = `${process.execPath} ${join(here, "browser.mjs")}`;
if (browser.split(" ").length !== 2) {
  console.error(`adapter: the browser command \`${browser}\` has a path with a space in it`);
  process.exit(2);
}

function call(tool, args, extra = []) {
  return ["call", "--to", "mcp", "--tool", tool, "--arguments", JSON.stringify(args), ...extra, "--url", url];
}

let command;
let commands;
if (scenario === "initialize") {
  command = ["list", "--to", "mcp", "--url", url];
} else if (scenario === "tools_call") {
  command = call("add_numbers", { a: 1, b: 2 });
} else if (scenario === "elicitation-sep1034-client-defaults") {
  // Accepting with nothing typed in: every field takes the form's default.
  command = call("test_client_elicitation_defaults", {}, ["--elicit", "{}"]);
} else if (scenario === "sse-retry") {
  command = call("test_reconnection", {});
} else if (scenario.startsWith("auth/")) {
  const flags = ["--auth-browser", browser, "--auth-timeout", "20"];
  // A client that has a client ID metadata document says where it is; servers that take
  // them use it, the others register the client.
  flags.push("--client-metadata-url", "https://conformance-test.local/client-metadata.json");
  if (context.client_id) flags.push("--client-id", context.client_id);
  if (context.client_secret) env.TOOLDEF_CLIENT_SECRET = context.client_secret;
  if (context.private_key_pem) {
    const key = join(home, "client-key.pem");
    writeFileSync(key, context.private_key_pem, { mode: 0o600 });
    flags.push("--client-key", key, "--client-key-alg", context.signing_algorithm ?? "ES256");
  }
  if (scenario.startsWith("auth/client-credentials-")) {
    flags.push("--oauth-grant", "client-credentials");
  }
  // A user of an enterprise identity provider gives it and the ID token it issued them.
  if (context.idp_id_token) {
    flags.push("--oauth-grant", "enterprise", "--idp-issuer", context.idp_issuer);
    flags.push("--idp-client-id", context.idp_client_id);
    env.TOOLDEF_IDP_ID_TOKEN = context.idp_id_token;
  }
  // As a user would: list the server's tools, signing in, then call one; the call runs on the
  // tokens the listing kept (and signs in again only for more scope).
  commands = [["list", "--to", "mcp", ...flags, "--url", url], call("test-tool", {}, flags)];
} else {
  console.error(`adapter: no tooldef command for the scenario \`${scenario}\``);
  process.exit(2);
}

// Each command in turn, stopping at the first that fails, whose status is the adapter's.
let status = 0;
for (const args of commands ?? [command]) {
  const run = spawnSync(tooldef, args, { env, stdio: ["ignore", "inherit", "inherit"] });
  if (run.error) {
    console.error(`adapter: cannot run ${tooldef}: ${run.error.message}`);
    status = 2;
  } else {
    status = run.status ?? 1;
  }
  if (status !== 0) break;
}
rmSync(home, { recursive: true, force: true });
process.exit(status);
