import { Hono } from 'hono'
import { cors } from 'hono/cors'
import { AppError } from '../errors.js'
import { randomBase62, sha256Hex } from '../lib/crypto.js'
import { RateLimiter } from '../lib/rate-limit.js'
import type { Services } from '../services.js'
import { errorResponse } from './errors.js'
import { buildOpenApi, renderReference } from './openapi.js'
import { honoPath, type RouteDef } from './route.js'
import { v1Routes } from './v1/index.js'
import { mountWidgetPages } from './widget-pages.js'

type Env = { Variables: { requestId: string } }

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

/** The /v1 REST API, /healthz and the API reference: parsing and shaping only, logic in modules/. */
export function buildRestApp(svc: Services, opts: { demo?: { tenantId: string } | null; extraRoutes?: RouteDef[]; version?: string } = {}) {
  const version = opts.version ?? '0.1.0'
  const app = new Hono<Env>()
  const routes = [...v1Routes, ...(opts.extraRoutes ?? [])]

  app.use('*', async (c, next) => {
    const given = c.req.header('x-request-id')
    const id = given && REQUEST_ID.test(given) ? given : `req_${randomBase62(20)}`
    c.set('requestId', id)
    c.header('x-request-id', id)
    await next()
  })

  // The widget runs on customers' own domains: its token-authenticated calls allow any origin, without
  // credentials. API-key routes get no CORS on purpose: keys belong on servers, never in browsers.
  const widgetCors = cors({ origin: '*', allowMethods: ['GET', 'POST', 'OPTIONS'], allowHeaders: ['X-Session-Token', 'Content-Type', 'X-Request-Id'], exposeHeaders: ['X-Request-Id'], maxAge: 600 })
  app.use('/v1/widget/*', widgetCors)
  app.use('/v1/verify/session/:token/status', widgetCors)

  // per credential (API key or session token): a client that floods gets 429 rate_limited with Retry-After
  if (svc.config.RATE_LIMIT_PER_MINUTE > 0) {
    const limiter = new RateLimiter(svc.config.RATE_LIMIT_PER_MINUTE, svc.config.RATE_LIMIT_BURST)
    app.use('/v1/*', async (c, next) => {
      const credential = c.req.header('authorization') ?? c.req.header('x-session-token') ?? c.req.path.match(/\/session\/([^/]+)\/status$/)?.[1]
      if (credential) {
        const r = limiter.take(sha256Hex(credential))
        if (!r.ok) throw new AppError('rate_limited', `too many requests for this credential; retry after ${r.retryAfter} s`, { retryAfter: r.retryAfter })
      }
      await next()
    })
  }

  for (const r of routes) {
    app.on(r.method.toUpperCase(), honoPath(r.path), (c) => r.handler(c, svc))
  }

  const doc = buildOpenApi(routes, svc.config.PUBLIC_URL, version)
  const docJson = JSON.stringify(doc)
  const reference = renderReference(doc)
  app.get('/v1/openapi.json', (c) => c.body(docJson, 200, { 'content-type': 'application/json; charset=utf-8' }))
  app.get('/v1/docs', (c) => c.html(reference))
  app.get('/docs', (c) => c.redirect('/v1/docs'))

  app.get('/healthz', async (c) => {
    try {
      await svc.db.$queryRaw`SELECT 1`
      return c.json({ status: 'ok', database: svc.dbKind })
    } catch (err) {
      svc.logger.error({ err }, 'health check failed')
      return c.json({ status: 'unavailable', database: svc.dbKind }, 503)
    }
  })

  mountWidgetPages(app, svc, opts.demo ?? null)

  // a known path with another method is 405, anything else under /v1 is 404, both in the error format
  app.all('/v1/*', (c) => {
    const known = routes.some((r) => new RegExp(`^${honoPath(r.path).replace(/:\w+/g, '[^/]+')}$`).test(c.req.path))
    throw known ? new AppError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}`) : new AppError('not_found', `no route ${c.req.method} ${c.req.path}`)
  })
  app.notFound((c) => errorResponse(c, new AppError('not_found', `no route ${c.req.method} ${c.req.path}`), svc.logger))
  app.onError((err, c) => errorResponse(c, err, svc.logger))
  return app
}
