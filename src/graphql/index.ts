import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Services } from '../services.js'

/**
 * GraphQL over HTTP (/graphql, Yoga) and WebSocket (graphql-ws) on the app's server.
 * Placeholder until the GraphQL issue lands: answers nothing, so /graphql falls through to 404.
 */
export interface GraphqlMount {
  /** handles the request when it is for /graphql; returns false otherwise */
  handle(req: IncomingMessage, res: ServerResponse): boolean
  stop(): Promise<void>
}

export function mountGraphql(_svc: Services, _server: Server): GraphqlMount {
  return { handle: () => false, stop: async () => {} }
}
