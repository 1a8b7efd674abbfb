import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { ExecutionArgs } from 'graphql'
import { CloseCode, type Context } from 'graphql-ws'
import { useServer, type Extra } from 'graphql-ws/use/ws'
import { WebSocketServer } from 'ws'
import { isAppError } from '../errors.js'
import type { Session } from '../generated/prisma/client.js'
import { authenticateApiKey, type Principal } from '../modules/api-keys/authenticate-api-key.js'
import { findSessionByToken, isExpired } from '../modules/sessions/resolve-session.js'
import { AppError } from '../errors.js'
import type { Services } from '../services.js'
import { requestIdFrom, type Credentials } from './context.js'
import { graphqlJs } from './graphql-js.js'
import type { GraphqlYoga } from './yoga.js'

const { GraphQLError } = graphqlJs

interface Connection {
  credentials: Credentials
  principal?: Principal
  session?: Session
  requestId: string
}

type WsContext = Context<Record<string, unknown> | undefined, Extra>

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined)

/**
 * graphql-ws on the app's own HTTP server (path /graphql), executing through Yoga's envelop so
 * that the schema, the context, the limits and the error masking are the same as over HTTP.
 * Credentials are checked once when the connection opens: a wrong or expired token closes it with
 * 4403 and a reason that says why.
 */
export function attachGraphqlWs(svc: Services, server: Server, yoga: GraphqlYoga): { stop(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 })
  const connections = new WeakMap<object, Connection>()
  const maxSubs = svc.config.WS_MAX_SUBSCRIPTIONS

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0]
    if (path !== yoga.graphqlEndpoint) return // another upgrade handler may want it
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  }
  server.on('upgrade', onUpgrade)

  const refuse = (ctx: WsContext, e: unknown): false => {
    const reason = isAppError(e) ? `${e.code}: ${e.message}` : 'forbidden'
    // close reasons are limited to 123 bytes
    ctx.extra.socket.close(CloseCode.Forbidden, reason.slice(0, 120))
    return false
  }

  const server_ = useServer(
    {
      connectionInitWaitTimeout: 5_000,
      onConnect: async (ctx) => {
        const p = ctx.connectionParams ?? {}
        const h = ctx.extra.request.headers
        const auth = str(p['authorization']) ?? str(p['Authorization']) ?? str(h.authorization)
        const credentials: Credentials = {
          authorization: auth && !/^bearer /i.test(auth) ? `Bearer ${auth}` : auth,
          sessionToken: str(p['sessionToken']) ?? str(h['x-session-token']),
        }
        const conn: Connection = { credentials, requestId: requestIdFrom(str(h['x-request-id'])) }
        try {
          if (!credentials.authorization && !credentials.sessionToken)
            throw new AppError('unauthorized', 'send connectionParams.authorization (Bearer sk_…) or connectionParams.sessionToken')
          if (credentials.authorization) conn.principal = await authenticateApiKey(svc, credentials.authorization)
          if (credentials.sessionToken) {
            const s = await findSessionByToken(svc, credentials.sessionToken)
            if (isExpired(s, svc.now())) throw new AppError('session_expired', 'this session has expired; create a new one')
            conn.session = s
          }
        } catch (e) {
          if (!isAppError(e)) svc.logger.error({ err: e, requestId: conn.requestId }, 'graphql-ws: authentication failed')
          return refuse(ctx, e)
        }
        connections.set(ctx, conn)
        return true
      },
      onSubscribe: async (ctx, id, payload) => {
        const conn = connections.get(ctx)
        if (!conn) return [new GraphQLError('connection not initialised', { extensions: { code: 'unauthorized' } })]
        // graphql-ws registers the operation (this one included) before onSubscribe and forgets it
        // as soon as the client completes it, so this count is exact
        if (Object.keys(ctx.subscriptions).length > maxSubs)
          return [new GraphQLError(`at most ${maxSubs} operations per connection`, { extensions: { code: 'too_many_subscriptions' } })]
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ws: { credentials: conn.credentials, requestId: `${conn.requestId}.${id}`, ...(conn.principal ? { principal: conn.principal } : {}), ...(conn.session ? { session: conn.session } : {}) },
          params: payload,
        } as never)
        let document
        try {
          document = parse(payload.query)
        } catch (e) {
          return [e instanceof GraphQLError ? e : new GraphQLError('could not parse the query')]
        }
        const errors = validate(schema, document)
        if (errors.length) return errors
        const args: ExecutionArgs & { execute: typeof execute; subscribe: typeof subscribe } = {
          schema,
          operationName: payload.operationName ?? null,
          document,
          variableValues: payload.variables ?? null,
          contextValue: await contextFactory(),
          execute,
          subscribe,
        }
        return args
      },
      execute: (args) => (args as unknown as { execute: (a: ExecutionArgs) => never }).execute(args),
      subscribe: (args) => (args as unknown as { subscribe: (a: ExecutionArgs) => never }).subscribe(args),
    },
    wss,
  )

  return {
    async stop() {
      server.off('upgrade', onUpgrade)
      for (const c of wss.clients) c.terminate()
      await server_.dispose()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}
