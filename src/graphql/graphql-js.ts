import { createRequire } from 'node:module'

/**
 * graphql-js, loaded the way every dependency loads it (CommonJS `main`). graphql 16 ships both
 * index.js and index.mjs without an `exports` map: Node (and so Yoga, Pothos, graphql-ws) takes the
 * CommonJS one, while Vite-based tooling (vitest) resolves our own sources to the .mjs copy, and two
 * copies break every `instanceof` check ("Cannot use GraphQLObjectType from another module or realm").
 * Runtime values from graphql go through here; type-only imports may come from 'graphql' directly.
 */
const require = createRequire(import.meta.url)
export const graphqlJs = require('graphql') as typeof import('graphql')
