import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Services } from '../services.js'
import { requestIdFrom } from './context.js'
import { attachGraphqlWs } from './ws.js'
import { createGraphqlYoga } from './yoga.js'

/**
 * GraphQL over HTTP (/graphql, Yoga: queries, mutations, SSE subscriptions, GraphiQL) and over
 * WebSocket (graphql-ws on the same server and path).
 */
export interface GraphqlMount {
  /** handles the request when it is for /graphql; returns false otherwise */
  handle(req: IncomingMessage, res: ServerResponse): boolean
  stop(): Promise<void>
}

export function mountGraphql(svc: Services, server: Server): GraphqlMount {
  const yoga = createGraphqlYoga(svc)
  const ws = attachGraphqlWs(svc, server, yoga)
  return {
    handle(req, res) {
      const url = req.url ?? ''
      const q = url.indexOf('?')
      if ((q === -1 ? url : url.slice(0, q)) !== yoga.graphqlEndpoint) return false
      const given = req.headers['x-request-id']
      const requestId = requestIdFrom(typeof given === 'string' ? given : undefined)
      res.setHeader('x-request-id', requestId)
      void Promise.resolve(yoga.handle(req, res, { requestId })).catch((err: unknown) => {
        svc.logger.error({ err, requestId }, 'graphql: request failed')
        if (!res.headersSent) res.writeHead(500).end()
        else res.destroy()
      })
      return true
    },
    stop: () => ws.stop(),
  }
}
