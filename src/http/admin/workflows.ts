/**
 * @module /admin/workflows: list, read (with version history), create or change (each change is a new
 * version, applied to the next request), deactivate. Also /admin/plugins: every plugin's manifest with its
 * config schema, for editors.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { GatewayError } from '../../errors/gateway-error.ts'
import { chainOrder } from '../../pipeline/types.ts'
import type { WorkflowVersion } from '../../workflows/definition.ts'
import { workflowInputSchema } from '../../workflows/definition.ts'
import { z } from 'zod'
import { adminAnswer, adminDoc, adminResponses, jsonResponse, jsonSchemaOf, readJsonBody } from './admin-http.ts'

const workflowView = z.object({
  id: z.string(),
  object: z.literal('workflow'),
  name: z.string(),
  description: z.string(),
  version: z.number().int(),
  version_id: z.string(),
  active: z.boolean(),
  scope: z.unknown(),
  features: z.record(z.string(), z.boolean()),
  plugins: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  created_by: z.string(),
})
const workflowList = z.object({ object: z.literal('list'), data: z.array(workflowView) })
const pluginList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({ id: z.string(), stage: z.string(), order: z.number(), summary: z.string(), features: z.array(z.string()), config_schema: z.record(z.string(), z.unknown()) }),
  ),
})

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
      detail: adminDoc('workflows', 'Active workflows with their features and plugin settings', undefined, adminResponses({ 200: jsonResponse(workflowList, 'The workflows') })),
    })
    .get(
      '/workflows/:id',
      (context) =>
        adminAnswer(gateway, context, async () => {
          const versions = await registry.history(context.params.id)
          if (versions.length === 0) throw notFound(context.params.id)
          return Response.json({ ...toWorkflowView(versions[0]!), versions: versions.map(toWorkflowView) })
        }),
      {
        detail: adminDoc(
          'workflows',
          'One workflow with every version, newest first',
          undefined,
          adminResponses({ 200: jsonResponse(workflowView.extend({ versions: z.array(workflowView) }), 'The workflow') }, [404]),
        ),
      },
    )
    .post(
      '/workflows',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const { version, created } = await registry.upsert(await readJsonBody(context.request), actor.id)
          return Response.json(toWorkflowView(version), { status: created ? 201 : 200 })
        }),
      {
        parse: 'none',
        detail: adminDoc(
          'workflows',
          'Create a workflow, or a new version of the one with the same name (applies to the next request)',
          workflowInputSchema,
          adminResponses({ 200: jsonResponse(workflowView, 'A new version of an existing workflow'), 201: jsonResponse(workflowView, 'A new workflow') }, [400]),
        ),
      },
    )
    .post(
      '/workflows/:id/deactivate',
      (context) =>
        adminAnswer(gateway, context, async () => {
          if (!(await registry.deactivate(context.params.id))) throw notFound(context.params.id)
          return Response.json({ id: context.params.id, active: false })
        }),
      {
        parse: 'none',
        detail: adminDoc(
          'workflows',
          'Deactivate a workflow (its history stays); the default workflow cannot be (400)',
          undefined,
          adminResponses({ 200: jsonResponse(z.object({ id: z.string(), active: z.literal(false) }), 'Deactivated') }, [400, 404]),
        ),
      },
    )
    .get(
      '/plugins',
      (context) =>
        adminAnswer(gateway, context, async () =>
          Response.json({
            object: 'list',
            data: chainOrder(gateway.plugins).map(({ stage, plugin: { manifest } }, i) => ({
              id: manifest.id,
              stage,
              order: i + 1,
              summary: manifest.summary,
              features: manifest.features,
              config_schema: jsonSchemaOf(manifest.config),
            })),
          }),
        ),
      {
        detail: adminDoc(
          'workflows',
          'Every plugin in running order, with its stage, place in the pipeline (order), features and config schema',
          undefined,
          adminResponses({ 200: jsonResponse(pluginList, 'The plugins') }),
        ),
      },
    )
}
