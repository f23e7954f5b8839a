/**
 * @module The route stage without failover (core): one upstream call to the resolved target. The failover
 * plugin replaces it when the `failover` feature is on.
 */
import { definePlugin } from '../../src/pipeline/types.ts'
import { callTarget } from '../../src/providers/call-target.ts'
import { singleTargetRouterManifest } from './manifest.ts'

export const singleTargetRouter = definePlugin({
  manifest: singleTargetRouterManifest,
  create(deps) {
    return {
      dispatch: (ctx) => callTarget(ctx, ctx.target!, 'primary', deps),
    }
  },
})
