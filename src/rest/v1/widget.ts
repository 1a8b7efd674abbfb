import { z } from 'zod'
import { AppError } from '../../errors.js'
import { issueChallenge } from '../../modules/captures/issue-challenge.js'
import { submitSession } from '../../modules/captures/submit-session.js'
import { uploadCapture } from '../../modules/captures/upload-capture.js'
import { getWidgetSession } from '../../modules/captures/widget-session.js'
import { completeSandboxFromWidget, WIDGET_OUTCOMES } from '../../modules/sandbox/complete-from-widget.js'
import { readJsonBody, readRawBody } from '../body.js'
import { defineRoute } from '../route.js'

/**
 * The widget's own calls, authenticated by the session token in `X-Session-Token` (never an API key).
 * Images go up as raw bodies (image/jpeg, image/png, image/webp), one request per image.
 */
const token = (c: { req: { header(n: string): string | undefined } }) => c.req.header('x-session-token') ?? ''

export const widgetSession = defineRoute({
  method: 'get',
  path: '/v1/widget/session',
  operationId: 'widgetSession',
  summary: 'What the widget needs for this session',
  tag: 'Widget',
  auth: 'sessionToken',
  response: z.object({ mode: z.enum(['KYC', 'AUTH']), state: z.string(), documentos_aceitos: z.array(z.string()), sandbox: z.boolean() }).passthrough().describe('Widget session'),
  errors: ['unauthorized'],
  async handler(c, svc) {
    c.header('cache-control', 'no-store')
    return c.json(await getWidgetSession(svc, token(c)))
  },
})

export const widgetChallenge = defineRoute({
  method: 'post',
  path: '/v1/widget/challenge',
  operationId: 'widgetChallenge',
  summary: 'Start the selfie step: the server draws the liveness challenge',
  tag: 'Widget',
  auth: 'sessionToken',
  response: z.object({ challenge: z.enum(['blink', 'smile', 'turn', 'wave']), burst: z.object({ min: z.number(), max: z.number(), durationMs: z.number() }) }).describe('Challenge'),
  errors: ['unauthorized', 'session_expired', 'session_already_used'],
  async handler(c, svc) {
    return c.json(await issueChallenge(svc, token(c)))
  },
})

export const widgetUpload = defineRoute({
  method: 'post',
  path: '/v1/widget/captures/{kind}/{index}',
  operationId: 'widgetUpload',
  summary: 'Upload one image: document_front, document_back, or selfie frame 0–14',
  tag: 'Widget',
  auth: 'sessionToken',
  params: { kind: 'document_front | document_back | selfie', index: '0 for documents; the frame number for selfies' },
  response: z.object({ capture_id: z.uuid(), kind: z.string(), index: z.number(), width: z.number(), height: z.number() }).describe('Capture stored'),
  status: 201,
  errors: ['unauthorized', 'session_expired', 'session_already_used', 'invalid_request', 'invalid_state', 'invalid_image', 'unsupported_media_type', 'payload_too_large'],
  async handler(c, svc) {
    const bytes = await readRawBody(c, svc.config.UPLOAD_LIMIT_BYTES)
    const index = /^\d{1,2}$/.test(c.req.param('index') ?? '') ? Number(c.req.param('index')) : -1
    return c.json(await uploadCapture(svc, token(c), { kind: c.req.param('kind') ?? '', index, bytes }), 201)
  },
})

export const widgetSubmit = defineRoute({
  method: 'post',
  path: '/v1/widget/submit',
  operationId: 'widgetSubmit',
  summary: 'Finish capturing: starts the analysis; the token is dead afterwards',
  tag: 'Widget',
  auth: 'sessionToken',
  body: z.object({ document_type: z.string().optional() }).describe('Submit'),
  response: z.object({ verification_id: z.uuid().optional(), auth_id: z.uuid().optional(), status: z.literal('processing') }).describe('Submitted'),
  status: 202,
  errors: ['unauthorized', 'session_expired', 'session_already_used', 'invalid_request', 'invalid_state', 'invalid_json'],
  async handler(c, svc) {
    const body = (await readJsonBody(c, svc.config.BODY_LIMIT_BYTES)) ?? {}
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_request', 'the body must be a JSON object')
    return c.json(await submitSession(svc, token(c), body as { document_type?: unknown }), 202)
  },
})

export const widgetSandboxComplete = defineRoute({
  method: 'post',
  path: '/v1/widget/sandbox/complete',
  operationId: 'widgetSandboxComplete',
  summary: 'Sandbox only: finish the session with a chosen outcome, without a camera',
  tag: 'Widget',
  auth: 'sessionToken',
  body: z.object({ outcome: z.enum(WIDGET_OUTCOMES).optional() }).describe('Sandbox outcome (KYC; ignored for Auth, decided by external_id)'),
  response: z.object({ verification_id: z.uuid().optional(), auth_id: z.uuid().optional(), status: z.string() }).passthrough().describe('Completed'),
  errors: ['unauthorized', 'sandbox_only', 'session_expired', 'session_already_used', 'invalid_request', 'invalid_json'],
  async handler(c, svc) {
    const body = (await readJsonBody(c, svc.config.BODY_LIMIT_BYTES)) ?? {}
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_request', 'the body must be a JSON object')
    return c.json(await completeSandboxFromWidget(svc, token(c), body))
  },
})
