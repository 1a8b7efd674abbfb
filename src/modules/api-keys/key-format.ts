import type { Ambiente } from '../../generated/prisma/enums.js'

export const KEY_PREFIX: Record<Ambiente, string> = { sandbox: 'sk_test_', producao: 'sk_live_' }

/** sk_test_ / sk_live_ followed by 40 base62 characters (≈238 bits). */
export const KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9]{40}$/

export function ambienteOfKey(key: string): Ambiente | null {
  if (!KEY_PATTERN.test(key)) return null
  return key.startsWith('sk_live_') ? 'producao' : 'sandbox'
}
