import { z } from 'zod'
import { STATUS_OF, type ErrorCode } from '../errors.js'
import type { RouteDef } from './route.js'
import { ErrorBody } from './v1/schemas.js'

const schemaOf = (s: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>
  return rest
}

/** OpenAPI 3.1 generated from the route table and the same zod schemas that validate requests. */
export function buildOpenApi(routes: RouteDef[], baseUrl: string, version: string) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const byStatus = new Map<number, ErrorCode[]>()
    for (const code of r.errors) byStatus.set(STATUS_OF[code], [...(byStatus.get(STATUS_OF[code]) ?? []), code])
    const responses: Record<string, unknown> = {
      [String(r.status ?? 200)]: { description: r.response.description ?? 'OK', content: { 'application/json': { schema: schemaOf(r.response, 'output') } } },
    }
    for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0]))
      responses[String(status)] = {
        description: `detail: ${codes.map((c) => `\`${c}\``).join(', ')}`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      }
    paths[r.path] = {
      ...paths[r.path],
      [r.method]: {
        operationId: r.operationId,
        summary: r.summary,
        description: r.description,
        tags: [r.tag],
        security: r.auth === 'apiKey' ? [{ apiKey: [] }] : [],
        parameters: Object.entries(r.params ?? {}).map(([name, description]) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } })),
        ...(r.body ? { requestBody: { required: false, content: { 'application/json': { schema: schemaOf(r.body, 'input') } } } } : {}),
        responses,
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Identity verification API',
      version,
      description:
        'KYC (document + selfie + liveness) and Auth 1:1 (selfie + liveness) sessions. Errors are `{"detail", "message", "request_id"}`; results arrive by signed webhook (the source of truth), GET, and widget callbacks.',
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'sk_test_… (sandbox) or sk_live_… (production)' } },
      schemas: { Error: schemaOf(ErrorBody, 'output') },
    },
    paths,
  }
}

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** A readable, dependency-free API reference rendered on the server from the OpenAPI document. */
export function renderReference(doc: ReturnType<typeof buildOpenApi>): string {
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Record<string, any> })),
  )
  const section = ({ path, method, op }: (typeof ops)[number]) => `
  <section id="${esc(op.operationId)}">
    <h2><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h2>
    <p><strong>${esc(op.summary)}</strong>. ${esc(op.description)}</p>
    <p>Auth: ${op.security?.length ? '<code>Authorization: Bearer sk_…</code>' : 'none (the path token)'}</p>
    ${op.parameters?.length ? `<h3>Path parameters</h3><ul>${op.parameters.map((p: any) => `<li><code>${esc(p.name)}</code>: ${esc(p.description)}</li>`).join('')}</ul>` : ''}
    ${op.requestBody ? `<h3>Body</h3><pre>${esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2))}</pre>` : ''}
    <h3>Responses</h3><ul>${Object.entries(op.responses as Record<string, any>).map(([s, r]) => `<li><code>${esc(s)}</code> ${esc(r.description)}</li>`).join('')}</ul>
  </section>`
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)} — reference</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111}pre{background:#f4f4f5;padding:1rem;overflow:auto;font-size:13px}
.m{font:600 13px monospace;padding:2px 6px;border-radius:4px;color:#fff}.get{background:#1d4ed8}.post{background:#15803d}section{border-top:1px solid #ddd;padding-top:1rem}</style></head>
<body><h1>${esc(doc.info.title)} <small>v${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p>
<nav><ul>${ops.map(({ path, method, op }) => `<li><a href="#${esc(op.operationId)}">${esc(method.toUpperCase())} ${esc(path)}</a></li>`).join('')}</ul></nav>
${ops.map(section).join('')}
<section><h2>Error body</h2><pre>${esc(JSON.stringify(doc.components.schemas.Error, null, 2))}</pre></section>
</body></html>`
}
