import { authenticateApiKey } from '../../modules/api-keys/authenticate-api-key.js'
import { createKycSession } from '../../modules/sessions/create-session.js'
import { KycSessionInput, SessionCreated } from '../../modules/sessions/session-input.js'
import { readJsonBody } from '../body.js'
import { defineRoute } from '../route.js'

export default defineRoute({
  method: 'post',
  path: '/v1/verify/session',
  operationId: 'createKycSession',
  summary: 'Create a KYC session',
  description:
    'Creates a 30-minute KYC session and returns its single-use session_token for the widget. Production sessions reserve one KYC credit (given back if the session expires unused).',
  tag: 'Sessions',
  auth: 'apiKey',
  body: KycSessionInput,
  response: SessionCreated,
  status: 201,
  errors: ['unauthorized', 'key_inactive', 'wrong_ambiente', 'insufficient_credits', 'invalid_country', 'invalid_ambiente', 'invalid_external_id', 'invalid_webhook_url', 'invalid_documentos_aceitos', 'invalid_redirect_uri', 'invalid_request', 'invalid_json', 'unsupported_media_type', 'payload_too_large'],
  async handler(c, svc) {
    const principal = await authenticateApiKey(svc, c.req.header('authorization'))
    const body = await readJsonBody(c, svc.config.BODY_LIMIT_BYTES)
    return c.json(await createKycSession(svc, principal, body), 201)
  },
})
