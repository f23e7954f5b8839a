/**
 * @module The governed pass-through's routing hook (core, always on, only on rows of the pass-through API): where the
 * request goes (src/providers/passthrough-route.ts: a configured provider, a path on its allow-list, its model),
 * refused with a clear error before anything else when it may not go anywhere. The model becomes the request's
 * `<provider>/<model>`, which the resolver, model access, the limits and the prices then read as for any request;
 * the route is kept for the upstream call (src/providers/passthrough-call.ts).
 */
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { passthroughApi } from '../../src/protocols/passthrough/shape.ts'
import { passthroughRoute } from '../../src/providers/passthrough-route.ts'
import { passthroughManifest } from './manifest.ts'

const PREFIX = '/p/'

export const passthrough = definePlugin({
  manifest: passthroughManifest,
  create({ providers }) {
    return {
      before(ctx) {
        if (endpoint(ctx.endpoint).api !== passthroughApi || ctx.ingressError) return CONTINUE
        // The path as received (URL-normalised: dot segments resolved, escapes kept), so the check sees what is sent.
        const route = passthroughRoute(providers, ctx.method, ctx.path.slice(PREFIX.length), ctx.rawQuery, ctx.originalBody)
        if (route instanceof GatewayError) return respondWithError(ctx, route)
        ctx.passthrough = route
        ctx.requestedModel = `${route.providerName}/${route.model}`
        ctx.stream ||= /stream/i.test(route.url) || /(^|&)alt=sse(&|$)/.test(ctx.rawQuery)
        return CONTINUE
      },
    }
  },
})
