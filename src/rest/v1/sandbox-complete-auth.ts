import { z } from 'zod'
import { authenticateApiKey } from '../../modules/api-keys/authenticate-api-key.js'
import { completeSandboxAuth } from '../../modules/sandbox/complete-sandbox-session.js'
import { defineRoute } from '../route.js'

const Result = z
  .object({
    auth_id: z.uuid(),
    status: z.enum(['authenticated', 'rejected']),
    authenticated: z.boolean(),
    error_code: z.string().nullable().describe('NO_EMBEDDING (no approved sandbox KYC for this external_id) or LIVENESS_ERROR; null otherwise'),
  })
  .describe('Sandbox Auth result')

export default defineRoute({
  method: 'post',
  path: '/v1/sandbox/auth/session/{session_token}/complete',
  operationId: 'completeSandboxAuthSession',
  summary: 'Complete a sandbox Auth session without a camera',
  description:
    'Sandbox keys only; no body needed. external_id ending in "-reject": rejected; ending in "-liveness": rejected (LIVENESS_ERROR); no approved sandbox KYC for the external_id: rejected (NO_EMBEDDING); otherwise authenticated. Fires auth.completed.',
  tag: 'Sandbox',
  auth: 'apiKey',
  params: { session_token: 'the 64-character token of a sandbox Auth session of this tenant' },
  response: Result,
  errors: ['unauthorized', 'key_inactive', 'sandbox_only', 'not_found', 'session_expired', 'session_already_used'],
  async handler(c, svc) {
    const principal = await authenticateApiKey(svc, c.req.header('authorization'))
    return c.json(await completeSandboxAuth(svc, principal, c.req.param('session_token') ?? ''))
  },
})
