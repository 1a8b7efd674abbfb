/** What a session must upload before it can be submitted. */
export const CAPTURE_KINDS = ['document_front', 'document_back', 'selfie'] as const
export type CaptureKind = (typeof CAPTURE_KINDS)[number]

/** A selfie burst: 8–15 frames over 3–4 s. */
export const BURST = { min: 8, max: 15, durationMs: 3500 } as const

export const ACCEPTED_MIME = ['image/jpeg', 'image/png', 'image/webp'] as const
