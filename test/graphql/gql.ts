import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { print, type DocumentNode } from 'graphql'

export interface GqlResponse<T> {
  status: number
  data: T | null
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[]
  headers: Headers
}

/** POST /graphql with a typed document; `key` → Authorization, `token` → X-Session-Token. */
export async function gql<T, V>(
  base: string,
  doc: TypedDocumentNode<T, V> | DocumentNode | string,
  variables?: V,
  auth: { key?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<GqlResponse<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...auth.headers }
  if (auth.key) headers['authorization'] = `Bearer ${auth.key}`
  if (auth.token) headers['x-session-token'] = auth.token
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: typeof doc === 'string' ? doc : print(doc), variables }),
  })
  const body = (await res.json()) as { data?: T | null; errors?: GqlResponse<T>['errors'] }
  return { status: res.status, data: body.data ?? null, ...(body.errors ? { errors: body.errors } : {}), headers: res.headers }
}

export const codeOf = (r: GqlResponse<unknown>): unknown => r.errors?.[0]?.extensions?.['code']
