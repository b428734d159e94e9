// Asserts on what one `mcp-inspector --cli --format json` run printed; used by run.sh.
//
// usage: node check.mjs EXPECTATION STDOUT_FILE STDERR_FILE EXIT_CODE [ARG]
//
//   list N           exit 0; `result.tools` holds N tools, distinct names, object input schemas
//   call-ok CITY     exit 0; `result.isError` false, a text block mentions CITY, and
//                    `structuredContent.city` is CITY
//   call-error TEXT  exit 5 (the CLI's "tool error"); `result.isError` true, a text block
//                    mentions TEXT; the error envelope on stderr says `tool_is_error`
//   says TEXT        exit 0; stdout is one JSON document whose text holds TEXT (prompts,
//                    resources, completions)
//   error CODE       a non-zero exit; the error envelope (the last JSON line on stderr) has
//                    `error.code` CODE (`tool_not_found`, `auth_required`, ...)
//
// Prints one line saying what it saw; exits 1, saying why, when the expectation is not met.
import { readFileSync } from "node:fs";

const [expectation, stdoutFile, stderrFile, exitText, arg] = process.argv.slice(2);
const exit = Number(exitText);
const stdout = readFileSync(stdoutFile, "utf8");
const stderr = readFileSync(stderrFile, "utf8");

function fail(message) {
  console.log(`FAILED: ${message}`);
  console.log(`  exit code: ${exit}`);
  console.log(`  stdout: ${stdout.slice(0, 2000).trim() || "(empty)"}`);
  console.log(`  stderr: ${stderr.slice(-2000).trim() || "(empty)"}`);
  process.exit(1);
}

function printed() {
  try {
    return JSON.parse(stdout);
  } catch (error) {
    fail(`stdout is not one JSON document: ${error.message}`);
  }
}

function envelope() {
  const lines = stderr.trim().split("\n").reverse();
  for (const line of lines) {
    try {
      const parsed = JSON.parse(line);
      if (parsed && parsed.error) return parsed.error;
    } catch {
      // not the envelope: a server's own stderr, or a status line
    }
  }
  fail("no error envelope on stderr");
}

function texts(result) {
  return (result.content || []).filter((block) => block.type === "text").map((block) => block.text);
}

switch (expectation) {
  case "list": {
    if (exit !== 0) fail("tools/list failed");
    const tools = printed().result?.tools;
    if (!Array.isArray(tools)) fail("no result.tools array");
    const names = tools.map((tool) => tool.name);
    if (tools.length !== Number(arg)) fail(`expected ${arg} tools, got ${tools.length}: ${names.join(", ")}`);
    if (new Set(names).size !== names.length) fail(`duplicate tool names: ${names.join(", ")}`);
    for (const tool of tools) {
      if (tool.inputSchema?.type !== "object") fail(`${tool.name}: inputSchema is not an object schema`);
    }
    console.log(`${tools.length} tools: ${names.join(", ")}`);
    break;
  }
  case "says": {
    if (exit !== 0) fail("the run failed");
    const text = JSON.stringify(printed());
    if (!text.includes(arg)) fail(`the result does not say ${JSON.stringify(arg)}`);
    console.log(`the result says ${JSON.stringify(arg)}`);
    break;
  }
  case "call-ok": {
    if (exit !== 0) fail("tools/call failed");
    const result = printed().result;
    if (!result || result.isError) fail("not a successful CallToolResult");
    if (!texts(result).some((text) => text.includes(arg))) fail(`no text block mentions ${arg}`);
    if (result.structuredContent?.city !== arg) fail(`structuredContent.city is not ${arg}`);
    console.log(`isError false, text and structuredContent mention ${arg}`);
    break;
  }
  case "call-error": {
    if (exit !== 5) fail(`expected exit code 5 (tool error), got ${exit}`);
    const result = printed().result;
    if (!result || result.isError !== true) fail("not a CallToolResult with isError: true");
    if (!texts(result).some((text) => text.includes(arg))) fail(`no text block mentions ${arg}`);
    const code = envelope().code;
    if (code !== "tool_is_error") fail(`error envelope code ${code}, expected tool_is_error`);
    console.log(`isError true, exit 5, says ${JSON.stringify(arg)}: ${JSON.stringify(texts(result)[0])}`);
    break;
  }
  case "error": {
    if (exit === 0) fail("expected a failure, the CLI exited 0");
    const error = envelope();
    if (error.code !== arg) fail(`error envelope code ${error.code}, expected ${arg}`);
    console.log(`exit ${exit}, ${error.code}: ${error.message}`);
    break;
  }
  default:
    fail(`unknown expectation ${expectation}`);
}
