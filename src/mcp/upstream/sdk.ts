/**
 * @module The MCP SDK's client side, loaded on first use: a gateway with no upstream MCP server never loads it
 * (with its validator and transports, about 150 modules and 8–10 MiB resident; docs/workers.md, "Memory per
 * process"). `loadMcpSdk()` loads it once; `loadedMcpSdk()` is the loaded copy, for `instanceof` checks on errors
 * that can only come from it.
 */
type McpSdk = Awaited<ReturnType<typeof importSdk>>

let loading: Promise<McpSdk> | undefined
let loaded: McpSdk | undefined

async function importSdk() {
  const [client, sse, stdio, streamableHttp, auth, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    UnauthorizedError: auth.UnauthorizedError,
    discoverAuthorizationServerMetadata: auth.discoverAuthorizationServerMetadata,
    discoverOAuthServerInfo: auth.discoverOAuthServerInfo,
    exchangeAuthorization: auth.exchangeAuthorization,
    registerClient: auth.registerClient,
    startAuthorization: auth.startAuthorization,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    CreateMessageRequestSchema: types.CreateMessageRequestSchema,
    ElicitRequestSchema: types.ElicitRequestSchema,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    PromptListChangedNotificationSchema: types.PromptListChangedNotificationSchema,
    ResourceListChangedNotificationSchema: types.ResourceListChangedNotificationSchema,
  }
}

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= importSdk().then((sdk) => (loaded = sdk))
  return loading
}

/** The SDK if it was loaded; an error can be one of its classes only then. */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded
}
