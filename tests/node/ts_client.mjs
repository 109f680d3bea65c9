// A small MCP client on the official TypeScript SDK, driven by tests/integration/test_node_clients.py.
//
//   node ts_client.mjs --url http://127.0.0.1:PORT/mcp/tiny_library [--header "Name: value"]...
//   node ts_client.mjs --stdio COMMAND [ARG...]
//
// Against one episode of the tiny_library fixture domain it lists the tools, calls
// borrow_book(MEM-00002, BK-00001) twice (the loan ids prove the episode keeps its state
// across calls), then makes a bad call (book_id missing, which must come back as an isError
// result, not a protocol error). It prints one JSON line with what it saw on stdout and
// exits 0; on any failure it prints the error on stderr and exits 1.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function usage(message) {
  process.stderr.write(`${message}\nusage: node ts_client.mjs --url URL [--header "Name: value"]... | --stdio COMMAND [ARG...]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  if (argv[0] === "--stdio") {
    if (argv.length < 2) usage("--stdio needs a command");
    return { command: argv[1], args: argv.slice(2) };
  }
  const options = { url: null, headers: {} };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === "--url") options.url = value;
    else if (flag === "--header") {
      const colon = value.indexOf(":");
      if (colon < 1) usage(`bad header ${value}`);
      options.headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
    } else usage(`unknown argument ${flag}`);
    i += 1;
  }
  if (!options.url) usage("give --url or --stdio");
  return options;
}

function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

function summary(result) {
  return { isError: result.isError === true, structuredContent: result.structuredContent ?? null, text: textOf(result) };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const transport = options.command
    ? new StdioClientTransport({
        command: options.command,
        args: options.args,
        // The SDK passes only a safe subset of the environment by default; the server
        // needs ours (SCALEENV_STATE_DIR, the virtualenv's PATH).
        env: { ...process.env },
        stderr: "inherit",
      })
    : new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers: options.headers } });
  const client = new Client({ name: "scaleenv-ts-test-client", version: "1.0.0" });
  await client.connect(transport);
  try {
    const server = client.getServerVersion();
    const listed = await client.listTools();
    const borrow = { member_id: "MEM-00002", book_id: "BK-00001" };
    const first = await client.callTool({ name: "borrow_book", arguments: borrow });
    const second = await client.callTool({ name: "borrow_book", arguments: borrow });
    const bad = await client.callTool({ name: "borrow_book", arguments: { member_id: "MEM-00002" } });
    const report = {
      transport: options.command ? "stdio" : "http",
      server: server ? { name: server.name, version: server.version } : null,
      sessionId: transport.sessionId ?? null,
      tools: listed.tools.map((t) => t.name),
      borrows: [summary(first), summary(second)],
      bad: summary(bad),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    if (transport instanceof StreamableHTTPClientTransport) {
      await transport.terminateSession(); // DELETE: what a well-behaved handshake-era client does on exit
    }
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  process.stderr.write(`ts_client: ${error?.stack ?? error}\n`);
  process.exit(1);
});
