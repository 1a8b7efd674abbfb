import { authenticateApiKey } from '../../modules/api-keys/authenticate-api-key.js'
import { createAuthSession } from '../../modules/sessions/create-session.js'
import { AuthSessionInput, SessionCreated } from '../../modules/sessions/session-input.js'
import { readJsonBody } from '../body.js'
import { defineRoute } from '../route.js'

export default defineRoute({
  method: 'post',
  path: '/v1/auth/session',
  operationId: 'createAuthSession',
  summary: 'Create an Auth 1:1 session',
  description:
    'Creates a 30-minute selfie-only session compared against the face stored from the approved KYC of the same external_id. Production sessions reserve one Auth credit.',
  tag: 'Sessions',
  auth: 'apiKey',
  body: AuthSessionInput,
  response: SessionCreated,
  status: 201,
  errors: ['unauthorized', 'key_inactive', 'wrong_ambiente', 'insufficient_credits', 'invalid_ambiente', 'invalid_external_id', 'invalid_webhook_url', 'invalid_redirect_uri', 'invalid_request', 'invalid_json', 'unsupported_media_type', 'payload_too_large'],
  async handler(c, svc) {
    const principal = await authenticateApiKey(svc, c.req.header('authorization'))
    const body = await readJsonBody(c, svc.config.BODY_LIMIT_BYTES)
    return c.json(await createAuthSession(svc, principal, body), 201)
  },
})
