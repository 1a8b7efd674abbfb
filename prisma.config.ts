import { defineConfig } from 'prisma/config'

// Only `prisma generate` uses this file: migrations go through prisma/migrate.ts (offline wasm engine).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
})
