import createAuthSession from './create-auth-session.js'
import createKycSession from './create-kyc-session.js'
import getSessionStatus from './get-session-status.js'
import getVerification from './get-verification.js'
import sandboxCompleteAuth from './sandbox-complete-auth.js'
import sandboxCompleteKyc from './sandbox-complete-kyc.js'
import type { RouteDef } from '../route.js'
import { widgetChallenge, widgetSandboxComplete, widgetSession, widgetSubmit, widgetUpload } from './widget.js'

/** Every /v1 route; order matters where paths overlap (the static session path before {id}). */
export const v1Routes: RouteDef[] = [createKycSession, createAuthSession, getSessionStatus, getVerification, sandboxCompleteKyc, sandboxCompleteAuth, widgetSession, widgetChallenge, widgetUpload, widgetSubmit, widgetSandboxComplete]
