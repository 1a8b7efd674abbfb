import { getSessionStatus } from '../../modules/sessions/get-session-status.js'
import { defineRoute } from '../route.js'
import { SessionStatus } from './schemas.js'

export default defineRoute({
  method: 'get',
  path: '/v1/verify/session/{session_token}/status',
  operationId: 'getSessionStatus',
  summary: 'Read a session status by its token',
  description:
    'Authenticated by the session token in the path alone (an API key does not work here). Gives the verification_id or auth_id once the widget has finished.',
  tag: 'Sessions',
  auth: 'sessionToken',
  params: { session_token: 'the 64-character session token' },
  response: SessionStatus,
  errors: ['unauthorized'],
  async handler(c, svc) {
    c.header('cache-control', 'no-store')
    return c.json(await getSessionStatus(svc, c.req.param('session_token') ?? ''))
  },
})
