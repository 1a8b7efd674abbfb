import { z } from 'zod'

const score = z.number().min(0).max(100).nullable()

/** Response shapes, for the OpenAPI document (requests are validated by the modules' own schemas). */
export const VerificationView = z
  .object({
    verification_id: z.uuid(),
    external_id: z.string().nullable(),
    status: z.enum(['processing', 'approved', 'rejected', 'manual_review', 'webhook_failed']),
    final_status: z.enum(['approved', 'rejected', 'manual_review']).nullable().describe('the decision; kept when status becomes webhook_failed'),
    country: z.string(),
    modo: z.enum(['FULL_KYC', 'SEM_DOC']),
    document_type: z.string().nullable(),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
    scores: z.object({ composto: score, face_match: score, liveness: score, antifraude: score }),
    ocr: z.object({
      nome: z.string().nullable(),
      documento_numero: z.string().nullable().describe('masked: last 3 characters visible'),
      data_nascimento: z.string().nullable().describe('YYYY-MM-DD'),
    }),
    motivos_rejeicao: z.array(z.string()).describe('stable snake_case codes; empty unless rejected'),
    session: z.object({ status: z.string(), created_at: z.iso.datetime(), expira_em: z.iso.datetime(), completed_at: z.iso.datetime().nullable() }),
    webhook: z.object({
      status: z.enum(['none', 'pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      last_attempt_at: z.iso.datetime().nullable(),
      last_response_status: z.number().int().nullable(),
    }),
  })
  .describe('Verification')

export const SessionStatus = z
  .object({
    status: z.string().describe('pending | expired | processing | approved | rejected | manual_review | webhook_failed | authenticated'),
    mode: z.enum(['KYC', 'AUTH']),
    verification_id: z.uuid().nullable().optional(),
    auth_id: z.uuid().nullable().optional(),
    expira_em: z.iso.datetime(),
  })
  .describe('Session status')

export const ErrorBody = z
  .object({
    detail: z.string().describe('stable error code, e.g. invalid_country'),
    message: z.string().describe('human-readable explanation'),
    request_id: z.string().describe('quote it to support'),
  })
  .describe('Error')
