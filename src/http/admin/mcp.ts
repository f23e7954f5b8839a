/**
 * @module /admin/mcp: the MCP gateway's servers (health, tools and who may see each), visibility rules, and callers'
 * upstream OAuth credentials. Every role reads servers and rules (no secret is ever shown: header and environment
 * names, not values); only an unscoped admin adds, changes or removes servers and rules (they apply to every
 * tenant); credentials are read and revoked within the principal's subtree. Every change is a security event with
 * the thing before and after (its non-secret view).
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import { hasPermission } from '../../admin/roles.ts'
import { inAdminScope } from '../../admin/scope.ts'
import type { Gateway } from '../../app.ts'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { configView, credentialView, mcpCredentialView, mcpServerView, serverView, visibilityRuleView } from '../../mcp/admin-views.ts'
import { mcpServerSchema, visibilityRuleSchema } from '../../mcp/config.ts'
import { recordAdminChange } from './admin-events.ts'
import { type AdminActor, adminAnswer, adminDoc, adminResponses, jsonResponse, queryRecord, readJsonBody } from './admin-http.ts'
import { adminPermission } from './permission.ts'

const listOf = (item: z.ZodType) => z.object({ object: z.literal('list'), data: z.array(item) })
const deleted = z.object({ id: z.string(), deleted: z.literal(true) })
const serverInput = z.object({ name: z.string() }).describe('`name` and the server’s configuration as in YAML `mcp.servers.<name>` (docs/mcp.md)')

const serverNotFound = (name: string) =>
  new GatewayError({ status: 404, type: 'not_found_error', code: 'mcp_server_not_found', param: 'name', message: `No MCP server named '${name.slice(0, 100)}'.` })

export function mcpAdminRoutes(gateway: Gateway) {
  const mcp = gateway.mcp
  const viewOf = (actor: AdminActor, name: string, withTools: boolean) => {
    const entry = mcp.catalog.get(name)
    if (!entry) throw serverNotFound(name)
    return serverView(entry, { withTools, rules: mcp.rules(), showStderr: hasPermission(actor.admin, 'mcp.write') })
  }
  /** A server's non-secret view for security events: what an admin may see of it. */
  const eventView = (name: string, config: unknown) => ({ name, ...configView(mcpServerSchema.parse(config)) })

  return new Elysia({ name: 'gateway/admin/mcp' })
    .use(adminPermission)
    .get(
      '/mcp/servers',
      (context) =>
        adminAnswer(gateway, context, async (actor) =>
          Response.json({
            object: 'list',
            data: mcp.catalog
              .names()
              .sort()
              .map((name) => viewOf(actor, name, false)),
          }),
        ),
      {
        permission: 'mcp.read',
        detail: adminDoc('mcp', 'MCP servers with their health and counts', undefined, adminResponses({ 200: jsonResponse(listOf(mcpServerView), 'The servers') })),
      },
    )
    .get('/mcp/servers/:id', (context) => adminAnswer(gateway, context, async (actor) => Response.json(viewOf(actor, context.params.id, true))), {
      permission: 'mcp.read',
      detail: adminDoc('mcp', 'One MCP server with its tools and the rules that name each', undefined, adminResponses({ 200: jsonResponse(mcpServerView, 'The server') }, [404])),
    })
    .post(
      '/mcp/servers',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const body = (await readJsonBody(context.request)) as Record<string, unknown>
          const { name, ...config } = typeof body === 'object' && body !== null ? body : ({} as Record<string, unknown>)
          if (typeof name !== 'string') throw gatewayErrors.invalidRequest('name: expected the server’s name.', 'name', 'invalid_mcp_server')
          const stored = await mcp.stored.putServer(name, config, 'create')
          recordAdminChange(gateway, context, actor, {
            event_type: 'mcp_server.created',
            subject_id: name,
            user_path: '/',
            before: null,
            after: eventView(name, stored),
            status_code: 201,
            message: `added MCP server ${name}`,
          })
          return Response.json(viewOf(actor, name, false), { status: 201 })
        }),
      {
        parse: 'none',
        permission: 'mcp.write',
        detail: adminDoc(
          'mcp',
          'Add an MCP server (stored, sealed; every replica connects to it)',
          serverInput,
          adminResponses({ 201: jsonResponse(mcpServerView, 'The server') }, [400, 409]),
        ),
      },
    )
    .put(
      '/mcp/servers/:id',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const name = context.params.id
          const before = mcp.stored.current.servers.get(name)?.config
          const stored = await mcp.stored.putServer(name, await readJsonBody(context.request), 'replace')
          recordAdminChange(gateway, context, actor, {
            event_type: 'mcp_server.replaced',
            subject_id: name,
            user_path: '/',
            before: before ? eventView(name, before) : null,
            after: eventView(name, stored),
            message: `replaced MCP server ${name}`,
          })
          return Response.json(viewOf(actor, name, false))
        }),
      {
        parse: 'none',
        permission: 'mcp.write',
        detail: adminDoc(
          'mcp',
          'Replace an MCP server added through the admin API',
          mcpServerSchema,
          adminResponses({ 200: jsonResponse(mcpServerView, 'The server') }, [400, 404, 409]),
        ),
      },
    )
    .delete(
      '/mcp/servers/:id',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const name = context.params.id
          const before = await mcp.stored.deleteServer(name)
          recordAdminChange(gateway, context, actor, {
            event_type: 'mcp_server.deleted',
            subject_id: name,
            user_path: '/',
            before: eventView(name, before),
            after: null,
            message: `removed MCP server ${name}`,
          })
          return Response.json({ id: name, deleted: true })
        }),
      {
        parse: 'none',
        permission: 'mcp.write',
        detail: adminDoc('mcp', 'Remove an MCP server added through the admin API', undefined, adminResponses({ 200: jsonResponse(deleted, 'Removed') }, [404, 409])),
      },
    )
    .get('/mcp/visibility', (context) => adminAnswer(gateway, context, async () => Response.json({ object: 'list', data: mcp.rules() })), {
      permission: 'mcp.read',
      detail: adminDoc(
        'mcp',
        'Tool visibility rules: the configuration’s, then those added here',
        undefined,
        adminResponses({ 200: jsonResponse(listOf(visibilityRuleView), 'The rules') }),
      ),
    })
    .post(
      '/mcp/visibility',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const added = await mcp.stored.addRule(await readJsonBody(context.request))
          recordAdminChange(gateway, context, actor, {
            event_type: 'mcp_visibility_rule.created',
            subject_id: added.id,
            user_path: added.rule.user_path ?? '/',
            before: null,
            after: added.rule,
            status_code: 201,
            message: `added MCP visibility rule ${added.id}`,
          })
          return Response.json({ id: added.id, source: 'admin', rule: added.rule, created_at: added.created_at }, { status: 201 })
        }),
      {
        parse: 'none',
        permission: 'mcp.write',
        detail: adminDoc('mcp', 'Add a tool visibility rule', visibilityRuleSchema, adminResponses({ 201: jsonResponse(visibilityRuleView, 'The rule') }, [400])),
      },
    )
    .delete(
      '/mcp/visibility/:id',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const removed = await mcp.stored.deleteRule(context.params.id)
          recordAdminChange(gateway, context, actor, {
            event_type: 'mcp_visibility_rule.deleted',
            subject_id: removed.id,
            user_path: removed.rule.user_path ?? '/',
            before: removed.rule,
            after: null,
            message: `removed MCP visibility rule ${removed.id}`,
          })
          return Response.json({ id: removed.id, deleted: true })
        }),
      {
        parse: 'none',
        permission: 'mcp.write',
        detail: adminDoc('mcp', 'Remove a tool visibility rule added here', undefined, adminResponses({ 200: jsonResponse(deleted, 'Removed') }, [404])),
      },
    )
    .get(
      '/mcp/credentials',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const query = queryRecord(context.request)
          const rows = await mcp.credentials.list({ server: query.server, userPath: actor.admin.scope ?? undefined, limit: 1000 })
          return Response.json({ object: 'list', data: rows.map(credentialView) })
        }),
      {
        permission: 'mcp.credentials.read',
        detail: adminDoc(
          'mcp',
          'Callers’ upstream OAuth credentials within your scope (owner, scope, expiry; never a token)',
          undefined,
          adminResponses({ 200: jsonResponse(listOf(mcpCredentialView), 'The credentials') }),
        ),
      },
    )
    .delete(
      '/mcp/credentials/:id',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const id = context.params.id
          const found = await mcp.credentials.byId(id)
          if (!found || found.ownerKind === 'client' || !inAdminScope(actor.admin.scope, found.userPath)) {
            throw new GatewayError({
              status: 404,
              type: 'not_found_error',
              code: 'mcp_credential_not_found',
              param: 'id',
              message: `No upstream credential with id '${id.slice(0, 100)}'.`,
            })
          }
          const removed = await mcp.revokeCredential(id)
          if (!removed)
            throw new GatewayError({
              status: 404,
              type: 'not_found_error',
              code: 'mcp_credential_not_found',
              param: 'id',
              message: `No upstream credential with id '${id.slice(0, 100)}'.`,
            })
          recordAdminChange(gateway, context, actor, {
            event_type: 'mcp_credential.revoked',
            subject_id: id,
            user_path: removed.userPath ?? '/',
            before: credentialView(removed),
            after: null,
            message: `revoked the ${removed.server} credential of ${removed.ownerKind} ${removed.ownerId}`,
          })
          return Response.json({ id, deleted: true })
        }),
      {
        parse: 'none',
        permission: 'mcp.credentials.revoke',
        detail: adminDoc(
          'mcp',
          'Revoke a caller’s upstream credential: its next call asks it to connect again',
          undefined,
          adminResponses({ 200: jsonResponse(deleted, 'Revoked') }, [404]),
        ),
      },
    )
}
