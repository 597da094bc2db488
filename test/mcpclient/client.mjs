// client.mjs drives the service's MCP server with the official TypeScript
// SDK's client (@modelcontextprotocol/sdk from npm), over stdio or over
// streamable HTTP, and prints one JSON summary line. Once the tools are
// listed, the SDK checks every structured answer against its tool's
// output schema and throws on a mismatch.
//
//   node client.mjs stdio <fragrance binary> <database>
//   node client.mjs http <base URL> <API key>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, a, b] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: a, args: ["mcp", "--db", b], stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(a + "/mcp"), { requestInit: { headers: { Authorization: "Bearer " + b } } });
const client = new Client({ name: "fragrance-mcp-test", version: "1.0.0" });
await client.connect(transport);

// Each tool with arguments a model would send.
const calls = {
  search_perfumes: { query: "sauvage dior", limit: 3 },
  get_perfume: { slug: "dior-sauvage" },
  similar_perfumes: { slug: "dior-sauvage", limit: 3 },
  find_dupes: { slug: "creed-aventus", limit: 3 },
  match_perfumes: { description: "fresh citrus for summer days, no oud", accords: [{ name: "woody", strength: 40 }], limit: 3 },
  recommend_perfumes: { liked: ["creed-aventus", "dior-sauvage"], avoid: ["oud"], limit: 3 },
  resolve_perfume: { text: "aventus creed", limit: 3 },
  list_brands: { query: "chanel" },
  list_notes: { limit: 5 },
  list_accords: { limit: 5 },
  get_perfumer: { slug: "alberto-morillas", limit: 3 },
  get_perfumes: { slugs: ["dior-sauvage", "creed-aventus"] },
};
const summary = { tools: [], called: {}, errors: [] };
const { tools } = await client.listTools();
for (const t of tools) {
  summary.tools.push(t.name);
  if (!t.description || !t.outputSchema) summary.errors.push(t.name + ": no description or output schema");
}
for (const [name, args] of Object.entries(calls)) {
  try {
    const res = await client.callTool({ name, arguments: args });
    if (res.isError) summary.errors.push(name + ": " + JSON.stringify(res.content));
    else if (!res.structuredContent) summary.errors.push(name + ": no structured content");
    else summary.called[name] = JSON.stringify(res.structuredContent).length;
  } catch (e) {
    summary.errors.push(name + " threw: " + e.message);
  }
}
// A mistake a model makes comes back as a tool error it can act on.
const bad = await client.callTool({ name: "match_perfumes", arguments: { accords: [{ name: "vanila" }] } });
summary.badAccord = bad.isError ? bad.content.map(c => c.text).join(" ") : "not an error";
// The perfume resource and the prompts.
const res = await client.readResource({ uri: "perfume://dior-sauvage" });
summary.resource = res.contents[0]?.text?.slice(0, 200) ?? "";
summary.prompts = (await client.listPrompts()).prompts.map(p => p.name);
await client.close();
console.log(JSON.stringify(summary));
