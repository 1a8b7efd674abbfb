import { createYoga, useErrorHandler, type Plugin, type YogaServerInstance } from 'graphql-yoga'
import type { Principal } from '../modules/api-keys/authenticate-api-key.js'
import type { Session } from '../generated/prisma/client.js'
import type { Services } from '../services.js'
import { buildContext, requestIdFrom, type Credentials, type GraphqlContext } from './context.js'
import { logUnexpected, maskError, wasLogged } from './errors.js'
import { graphqlJs } from './graphql-js.js'
import { queryLimitsRule } from './limits.js'
import { schema } from './schema/index.js'

/** What the transports hand to Yoga: HTTP passes the request id; WebSocket passes its already checked credentials. */
export interface ServerContext {
  requestId?: string
  ws?: { credentials: Credentials; requestId: string; principal?: Principal; session?: Session }
}

export type GraphqlYoga = YogaServerInstance<ServerContext, GraphqlContext>

export function createGraphqlYoga(svc: Services): GraphqlYoga {
  const { config, logger } = svc
  const rules = [queryLimitsRule(config.GRAPHQL_MAX_DEPTH, config.GRAPHQL_MAX_COST), ...(config.GRAPHQL_INTROSPECTION ? [] : [graphqlJs.NoSchemaIntrospectionCustomRule])]
  const useRules: Plugin = {
    onValidate({ addValidationRule }) {
      for (const r of rules) addValidationRule(r)
    },
  }
  const log = logger.child({ component: 'graphql' })
  return createYoga<ServerContext, GraphqlContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: config.GRAPHIQL ? { title: 'Identity verification API', subscriptionsProtocol: 'WS' } : false,
    // batching is off (the default): one operation per request keeps the limits meaningful
    maskedErrors: { maskError, isDev: config.NODE_ENV === 'development' },
    logging: {
      debug: (...a: unknown[]) => log.debug({ args: a }, 'yoga'),
      info: (...a: unknown[]) => log.info({ args: a }, 'yoga'),
      warn: (...a: unknown[]) => log.warn({ args: a }, 'yoga'),
      // errors we logged with their request id are not logged twice
      error: (...a: unknown[]) => {
        if (a.length === 1 && wasLogged(a[0])) return
        log.error({ err: a[0], args: a.slice(1) }, 'yoga error')
      },
    },
    context: ({ request, requestId, ws }) => {
      if (ws) return buildContext(svc, ws.credentials, ws.requestId, { ...(ws.principal ? { principal: ws.principal } : {}), ...(ws.session ? { session: ws.session } : {}) })
      const h = request.headers
      return buildContext(svc, { authorization: h.get('authorization'), sessionToken: h.get('x-session-token') }, requestId ?? requestIdFrom(h.get('x-request-id')))
    },
    plugins: [
      useRules,
      useErrorHandler(({ errors, context }) => {
        const c = context as { contextValue?: GraphqlContext; operationName?: string | null; requestId?: string }
        logUnexpected(logger, errors, c.contextValue?.requestId ?? c.requestId, c.operationName)
      }),
    ],
  })
}
