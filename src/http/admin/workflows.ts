/**
 * @module /admin/workflows: list, read (with version history), create or change (each change is a new
 * version, applied to the next request), deactivate. Also /admin/plugins: every plugin's manifest with its
 * config schema, for editors.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { GatewayError } from '../../errors/gateway-error.ts'
import type { WorkflowVersion } from '../../workflows/definition.ts'
import { workflowInputSchema } from '../../workflows/definition.ts'
import { adminAnswer, adminDoc, jsonSchemaOf, readJsonBody } from './admin-http.ts'

export function toWorkflowView(v: WorkflowVersion) {
  return {
    id: v.id,
    object: 'workflow',
    name: v.name,
    description: v.description,
    version: v.version,
    version_id: v.versionId,
    active: v.active,
    scope: v.scope,
    features: v.features,
    plugins: v.plugins,
    created_at: v.createdAt,
    created_by: v.createdBy,
  }
}

const notFound = (id: string) => new GatewayError({ status: 404, type: 'not_found_error', param: 'id', code: 'workflow_not_found', message: `No workflow with id '${id}'.` })

export function workflowRoutes(gateway: Gateway) {
  const registry = gateway.workflows
  return new Elysia({ name: 'gateway/admin/workflows' })
    .get('/workflows', (context) => adminAnswer(gateway, context, async () => Response.json({ object: 'list', data: registry.list().map(toWorkflowView) })), {
      detail: adminDoc('workflows', 'Active workflows with their features and plugin settings'),
    })
    .get(
      '/workflows/:id',
      (context) =>
        adminAnswer(gateway, context, async () => {
          const versions = await registry.history(context.params.id)
          if (versions.length === 0) throw notFound(context.params.id)
          return Response.json({ ...toWorkflowView(versions[0]!), versions: versions.map(toWorkflowView) })
        }),
      { detail: adminDoc('workflows', 'One workflow with every version, newest first') },
    )
    .post(
      '/workflows',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const { version, created } = await registry.upsert(await readJsonBody(context.request), actor.id)
          return Response.json(toWorkflowView(version), { status: created ? 201 : 200 })
        }),
      { parse: 'none', detail: adminDoc('workflows', 'Create a workflow, or a new version of the one with the same name (applies to the next request)', workflowInputSchema) },
    )
    .post(
      '/workflows/:id/deactivate',
      (context) =>
        adminAnswer(gateway, context, async () => {
          if (!(await registry.deactivate(context.params.id))) throw notFound(context.params.id)
          return Response.json({ id: context.params.id, active: false })
        }),
      { parse: 'none', detail: adminDoc('workflows', 'Deactivate a workflow (its history stays)') },
    )
    .get(
      '/plugins',
      (context) =>
        adminAnswer(gateway, context, async () =>
          Response.json({
            object: 'list',
            data: gateway.plugins.map((p) => ({ id: p.manifest.id, stage: p.manifest.stage, order: p.manifest.order, summary: p.manifest.summary, features: p.manifest.features, config_schema: jsonSchemaOf(p.manifest.config) })),
          }),
        ),
      { detail: adminDoc('workflows', 'Every plugin with its stage, features and config schema') },
    )
}
