import { z } from 'zod'
import { authenticateApiKey } from '../../modules/api-keys/authenticate-api-key.js'
import { completeSandboxKyc } from '../../modules/sandbox/complete-sandbox-session.js'
import { readJsonBody } from '../body.js'
import { defineRoute } from '../route.js'

const Body = z
  .object({ cpf: z.string().describe('magic CPF: 000.000.001-91 approved, 000.000.002-72 rejected (face_mismatch), 000.000.003-53 manual review, 000.000.004-34 rejected (document_expired); any other valid CPF approved') })
  .describe('Sandbox KYC completion')

const Result = z
  .object({ verification_id: z.uuid(), status: z.enum(['approved', 'rejected', 'manual_review']) })
  .describe('Sandbox KYC result')

export default defineRoute({
  method: 'post',
  path: '/v1/sandbox/verify/session/{session_token}/complete',
  operationId: 'completeSandboxKycSession',
  summary: 'Complete a sandbox KYC session without a camera',
  description:
    'Sandbox keys only. Decides the session by the CPF sent (magic numbers choose the outcome) and fires the same webhook as production. The token is used up.',
  tag: 'Sandbox',
  auth: 'apiKey',
  params: { session_token: 'the 64-character token of a sandbox KYC session of this tenant' },
  body: Body,
  response: Result,
  errors: ['unauthorized', 'key_inactive', 'sandbox_only', 'not_found', 'session_expired', 'session_already_used', 'invalid_cpf', 'invalid_json', 'unsupported_media_type', 'payload_too_large'],
  async handler(c, svc) {
    const principal = await authenticateApiKey(svc, c.req.header('authorization'))
    const body = await readJsonBody(c, svc.config.BODY_LIMIT_BYTES)
    return c.json(await completeSandboxKyc(svc, principal, c.req.param('session_token') ?? '', body))
  },
})
