/**
 * @module /admin/workflows: list, read (with version history), create or change (each change is a new
 * version, applied to the next request), deactivate. Also /admin/plugins: every plugin's manifest with its
 * config schema, for editors. Every role reads them; only an unscoped admin changes them (they apply to every
 * tenant), and each change is a security event with the version before and after.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { GatewayError } from '../../errors/gateway-error.ts'
import { chainOrder } from '../../pipeline/types.ts'
import type { WorkflowVersion } from '../../workflows/definition.ts'
import { workflowInputSchema } from '../../workflows/definition.ts'
import { z } from 'zod'
import { workflowVisible } from '../../admin/workflow-scope.ts'
import type { Principal } from '../../pipeline/context.ts'
import { recordAdminChange } from './admin-events.ts'
import { adminAnswer, adminDoc, adminResponses, jsonResponse, jsonSchemaOf, readJsonBody } from './admin-http.ts'
import { adminPermission } from './permission.ts'

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
  const visibleTo = (actor: Principal) => (v: WorkflowVersion) => workflowVisible(actor.admin?.scope ?? null, v.scope, (id) => gateway.keys.known(id))
  return new Elysia({ name: 'gateway/admin/workflows' })
    .use(adminPermission)
    .get(
      '/workflows',
      (context) => adminAnswer(gateway, context, async (actor) => Response.json({ object: 'list', data: registry.list().filter(visibleTo(actor)).map(toWorkflowView) })),
      {
        permission: 'workflows.read',
        detail: adminDoc('workflows', 'Active workflows with their features and plugin settings', undefined, adminResponses({ 200: jsonResponse(workflowList, 'The workflows') })),
      },
    )
    .get(
      '/workflows/:id',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const versions = await registry.history(context.params.id)
          if (versions.length === 0 || !visibleTo(actor)(versions[0]!)) throw notFound(context.params.id)
          return Response.json({ ...toWorkflowView(versions[0]!), versions: versions.filter(visibleTo(actor)).map(toWorkflowView) })
        }),
      {
        permission: 'workflows.read',
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
          const { version, created, previous } = await registry.upsert(await readJsonBody(context.request), actor.id)
          const status = created ? 201 : 200
          if (created)
            recordAdminChange(gateway, context, actor, {
              event_type: previous ? 'workflow.changed' : 'workflow.created',
              subject_id: version.id,
              before: previous ? toWorkflowView(previous) : null,
              after: toWorkflowView(version),
              status_code: status,
              message: `workflow '${version.name}' version ${version.version}`,
            })
          return Response.json(toWorkflowView(version), { status })
        }),
      {
        parse: 'none',
        permission: 'workflows.write',
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
        adminAnswer(gateway, context, async (actor) => {
          const [before] = await registry.history(context.params.id)
          if (!(await registry.deactivate(context.params.id))) throw notFound(context.params.id)
          recordAdminChange(gateway, context, actor, {
            event_type: 'workflow.deactivated',
            subject_id: context.params.id,
            before: before ? toWorkflowView(before) : null,
            after: before ? toWorkflowView({ ...before, active: false }) : null,
            message: `deactivated workflow '${before?.name ?? context.params.id}'`,
          })
          return Response.json({ id: context.params.id, active: false })
        }),
      {
        parse: 'none',
        permission: 'workflows.write',
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
        permission: 'plugins.read',
        detail: adminDoc(
          'workflows',
          'Every plugin in running order, with its stage, place in the pipeline (order), features and config schema',
          undefined,
          adminResponses({ 200: jsonResponse(pluginList, 'The plugins') }),
        ),
      },
    )
}
