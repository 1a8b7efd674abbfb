import { authenticateApiKey } from '../../modules/api-keys/authenticate-api-key.js'
import { getVerification } from '../../modules/verifications/get-verification.js'
import { defineRoute } from '../route.js'
import { VerificationView } from './schemas.js'

export default defineRoute({
  method: 'get',
  path: '/v1/verify/{verification_id}',
  operationId: 'getVerification',
  summary: 'Read a verification',
  description: 'The fallback when a webhook does not arrive, or polling after the redirect flow. Ids of another tenant or environment answer 404.',
  tag: 'Verifications',
  auth: 'apiKey',
  params: { verification_id: 'UUID from the webhook, onSuccess or the return deep link' },
  response: VerificationView,
  errors: ['unauthorized', 'key_inactive', 'not_found'],
  async handler(c, svc) {
    const principal = await authenticateApiKey(svc, c.req.header('authorization'))
    return c.json(await getVerification(svc, principal, c.req.param('verification_id') ?? ''))
  },
})
