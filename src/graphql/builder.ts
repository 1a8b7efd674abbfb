import SchemaBuilder from '@pothos/core'
import PrismaPlugin from '@pothos/plugin-prisma'
import RelayPlugin from '@pothos/plugin-relay'
import type { ValueNode } from 'graphql'
import { graphqlJs } from './graphql-js.js'
import type PrismaTypes from '../generated/pothos-types.js'
import { getDatamodel } from '../generated/pothos-types.js'
import type { GraphqlContext } from './context.js'

const { GraphQLError, Kind } = graphqlJs

/** The one Pothos builder: plugins and scalars only; types live in schema/<type>.ts. */
export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes
  Context: GraphqlContext
  DefaultFieldNullability: false
  Scalars: {
    DateTime: { Input: Date; Output: Date | string }
    JSON: { Input: unknown; Output: unknown }
  }
}>({
  defaultFieldNullability: false,
  plugins: [PrismaPlugin, RelayPlugin],
  prisma: {
    // one schema serves every app in the process (tests start several): the client comes from the request's services
    client: (ctx) => ctx.svc.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    maxConnectionSize: 100,
    defaultConnectionSize: 20,
    onUnusedQuery: null,
  },
  relay: {
    // no global node(id) lookup: it would bypass the tenant scope that every root field applies
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    clientMutationId: 'omit',
    cursorType: 'String',
  },
})

builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp',
  serialize: (v) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString()),
  parseValue: (v) => {
    const d = typeof v === 'string' ? new Date(v) : null
    if (!d || Number.isNaN(d.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string')
    return d
  },
  parseLiteral: (ast) => {
    const d = ast.kind === Kind.STRING ? new Date(ast.value) : null
    if (!d || Number.isNaN(d.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string')
    return d
  },
})

function literalValue(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value)
    case Kind.NULL:
      return null
    case Kind.LIST:
      return ast.values.map(literalValue)
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalValue(f.value)]))
    default:
      throw new GraphQLError('JSON literals cannot contain variables')
  }
}

builder.scalarType('JSON', {
  description: 'Arbitrary JSON value',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: literalValue,
})

builder.queryType({})
builder.mutationType({})
builder.subscriptionType({})
