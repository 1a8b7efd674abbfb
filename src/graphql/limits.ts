import {
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql'
import { graphqlJs } from './graphql-js.js'

const { GraphQLError, getNamedType, getNullableType, isCompositeType, isInterfaceType, isListType, isObjectType, Kind } = graphqlJs

/** Page size assumed for a connection whose first/last is a variable (the connection's maximum) or absent (its default). */
const VARIABLE_PAGE = 100
const DEFAULT_PAGE = 20
/** Items assumed in a plain list of objects (a verification's webhook events, their deliveries). */
const LIST_ITEMS = 5

interface Measure {
  depth: number
  cost: number
}

/**
 * Depth and cost limits as one validation rule (runs for HTTP, SSE and WebSocket alike, before any
 * resolver). Cost: 1 per field; a paginated field multiplies the cost of what it selects by its
 * page size (first/last, or the connection's maximum when it is a variable), a plain list by LIST_ITEMS. Introspection fields
 * (`__schema`, `__type`, `__typename`) are free: introspection has its own switch.
 */
export function queryLimitsRule(maxDepth: number, maxCost: number): ValidationRule {
  return (context) => {
    const schema = context.getSchema()
    const fragments = new Map<string, FragmentDefinitionNode>()
    for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
    return {
      OperationDefinition(op) {
        const root = schema.getRootType(op.operation)
        if (!root) return
        const m = measure(schema, op.selectionSet, root, fragments, new Set())
        const name = op.name ? `operation ${op.name.value}` : 'the operation'
        if (m.depth > maxDepth)
          context.reportError(new GraphQLError(`${name} is ${m.depth} levels deep; the limit is ${maxDepth}`, { nodes: [op], extensions: { code: 'query_too_deep' } }))
        if (m.cost > maxCost)
          context.reportError(new GraphQLError(`${name} costs ${m.cost}; the limit is ${maxCost}`, { nodes: [op], extensions: { code: 'query_too_costly' } }))
      },
    }
  }
}

function measure(
  schema: GraphQLSchema,
  set: SelectionSetNode,
  parent: GraphQLCompositeType,
  fragments: Map<string, FragmentDefinitionNode>,
  path: Set<string>,
): Measure {
  let depth = 0
  let cost = 0
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      const name = sel.name.value
      if (name.startsWith('__')) continue
      const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined
      if (!def) continue // unknown fields are reported by the standard rules
      const named = getNamedType(def.type)
      if (!sel.selectionSet || !isCompositeType(named)) {
        cost += 1
        depth = Math.max(depth, 1)
        continue
      }
      const child = measure(schema, sel.selectionSet, named, fragments, path)
      const paginated = def.args.some((a) => a.name === 'first')
      // a connection's edges are already counted by its page size
      const items = paginated ? pageSize(sel.arguments ?? [], true) : isListType(getNullableType(def.type)) && name !== 'edges' ? LIST_ITEMS : 1
      cost += 1 + items * child.cost
      depth = Math.max(depth, 1 + child.depth)
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const t = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent
      if (!t || !isCompositeType(t)) continue
      const m = measure(schema, sel.selectionSet, t, fragments, path)
      cost += m.cost
      depth = Math.max(depth, m.depth)
    } else {
      const name = sel.name.value
      const frag = fragments.get(name)
      if (!frag || path.has(name)) continue // cycles are reported by NoFragmentCycles
      const t = schema.getType(frag.typeCondition.name.value)
      if (!t || !isCompositeType(t)) continue
      path.add(name)
      const m = measure(schema, frag.selectionSet, t, fragments, path)
      path.delete(name)
      cost += m.cost
      depth = Math.max(depth, m.depth)
    }
  }
  return { depth, cost }
}

function pageSize(args: readonly { name: { value: string }; value: { kind: string; value?: unknown } }[], paginated: boolean): number {
  if (!paginated) return 1
  const a = args.find((x) => x.name.value === 'first' || x.name.value === 'last')
  if (!a) return DEFAULT_PAGE
  if (a.value.kind === Kind.INT) return Math.max(1, Number(a.value.value))
  return VARIABLE_PAGE
}
