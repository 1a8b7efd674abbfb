import { z } from 'zod'
import { AppError, type ErrorCode } from '../../errors.js'
import { ISO_COUNTRIES } from '../../lib/countries.js'

export const DOCUMENT_TYPES = ['passport', 'cin', 'cnh', 'rg', 'national_id', 'drivers_license'] as const
export type DocumentType = (typeof DOCUMENT_TYPES)[number]
/** Brazilian document types: offered only for country BR (or WORLD). */
export const BR_DOCUMENT_TYPES: readonly DocumentType[] = ['cin', 'cnh', 'rg']
/** Documents whose back side is captured too. */
export const NEEDS_BACK: readonly DocumentType[] = ['rg']

export function defaultDocumentTypes(country: string): DocumentType[] {
  if (country === 'WORLD') return [...DOCUMENT_TYPES]
  if (country === 'BR') return ['cin', 'cnh', 'rg', 'passport']
  return ['passport', 'national_id', 'drivers_license']
}

/** Schemes that are never a native app's deep link. */
const NON_APP_SCHEMES = new Set(['http', 'https', 'javascript', 'data', 'file', 'blob', 'vbscript', 'about', 'ftp', 'ws', 'wss', 'mailto', 'tel', 'sms', 'content', 'chrome', 'intent'])

export function isCustomSchemeDeepLink(value: string): boolean {
  if (value.length > 2048 || /[\s\u0000-\u001f\u007f]/.test(value)) return false
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.+)$/.exec(value)
  if (!m?.[1] || !m[2]) return false
  if (NON_APP_SCHEMES.has(m[1].toLowerCase())) return false
  try {
    new URL(value)
    return true
  } catch {
    return false
  }
}

const externalId = z
  .string({ error: 'external_id must be a string' })
  .min(1, 'external_id must not be empty')
  .max(255, 'external_id must have at most 255 characters')
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'external_id must not contain control characters')
  .describe('Customer-side user identifier, returned in webhooks (max 255 characters).')

const redirectUri = z
  .string({ error: 'redirect_uri must be a string' })
  .refine(isCustomSchemeDeepLink, 'redirect_uri must be a custom-scheme deep link such as myapp://kyc/done (http, https, javascript, data and file are refused)')
  .describe('Custom-scheme deep link the /widget page returns to (myapp://…). http(s) URLs are refused.')

const webhookUrl = z.string({ error: 'webhook_url must be a string' }).max(2048).describe('Overrides the tenant default webhook URL for this session.')

const ambiente = z
  .enum(['sandbox', 'producao'], { error: 'ambiente must be "sandbox" or "producao"' })
  .default('sandbox')
  .describe('Must match the key: sk_test_ → sandbox, sk_live_ → producao. Default sandbox.')

const country = z
  .string({ error: 'country must be a string' })
  .transform((s) => s.toUpperCase())
  .refine((s) => s === 'WORLD' || ISO_COUNTRIES.has(s), 'country must be an ISO 3166-1 alpha-2 code (e.g. BR) or WORLD')
  .default('WORLD')
  .describe('ISO 3166-1 alpha-2 code or WORLD (default).')

const documentosAceitos = z
  .array(z.enum(DOCUMENT_TYPES, { error: `documentos_aceitos values must be among ${DOCUMENT_TYPES.join(', ')}` }), {
    error: 'documentos_aceitos must be an array of document types',
  })
  .max(DOCUMENT_TYPES.length)
  .refine((a) => new Set(a).size === a.length, 'documentos_aceitos must not repeat a type')
  .describe('Document types the widget offers; default: the types compatible with country. An empty list means selfie-only (SEM_DOC).')

export const KycSessionInput = z
  .strictObject(
    {
      country,
      external_id: externalId.optional(),
      webhook_url: webhookUrl.optional(),
      ambiente,
      documentos_aceitos: documentosAceitos.optional(),
      redirect_uri: redirectUri.optional(),
    },
    { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : 'the body must be a JSON object') },
  )
  .describe('KYC session creation request')

export const AuthSessionInput = z
  .strictObject(
    {
      external_id: z.string({ error: 'external_id is required: the user whose approved KYC is compared' }).pipe(externalId),
      redirect_uri: redirectUri.optional(),
      webhook_url: webhookUrl.optional(),
      ambiente,
    },
    { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : 'the body must be a JSON object') },
  )
  .describe('Auth 1:1 session creation request')

export const SessionCreated = z
  .object({
    session_token: z.string().length(64).describe('64 hex characters; hand it to the widget. Valid 30 minutes, single use.'),
    expira_em: z.iso.datetime().describe('ISO 8601 expiry'),
    widget_url: z.url().optional().describe('Present when redirect_uri was sent: {base_url}/widget?token=…'),
  })
  .describe('Session created')

export type KycSessionInput = z.output<typeof KycSessionInput>
export type AuthSessionInput = z.output<typeof AuthSessionInput>

/** Field → the documented error code for a bad value of that field. */
const FIELD_CODES: Record<string, ErrorCode> = {
  country: 'invalid_country',
  ambiente: 'invalid_ambiente',
  external_id: 'invalid_external_id',
  webhook_url: 'invalid_webhook_url',
  documentos_aceitos: 'invalid_documentos_aceitos',
  redirect_uri: 'invalid_redirect_uri',
}

/** Parses with zod and turns the first issue into the documented AppError (code by field). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input)
  if (r.success) return r.data
  const issue = r.error.issues[0]!
  const field = typeof issue.path[0] === 'string' ? issue.path[0] : undefined
  const code = (field && FIELD_CODES[field]) || 'invalid_request'
  throw new AppError(code, issue.message, field ? { field } : undefined)
}
