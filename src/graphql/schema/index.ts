import { builder } from '../builder.js'
import './enums.js'
import './status-event.js'
import './session.js'
import './verification.js'
import './auth-attempt.js'
import './api-key.js'
import './credits.js'
import './webhook-delivery.js'
import './tenant.js'
import './sandbox.js'

export const schema = builder.toSchema({ sortSchema: true })
