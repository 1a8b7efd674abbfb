import { randomInt } from 'node:crypto'
import { CHALLENGES, type Challenge } from '../../analysis/liveness.js'
import type { Services } from '../../services.js'
import { requireActiveSession } from '../sessions/resolve-session.js'
import { BURST } from './capture-rules.js'
import { deleteCaptures } from './delete-captures.js'

/**
 * The selfie step starts: the server picks one challenge at random and stores it. The widget is
 * only told what to ask for; whether it was performed is decided from the uploaded frames.
 * Asking again (a retry) draws a new challenge and drops the frames of the previous attempt.
 */
export async function issueChallenge(svc: Pick<Services, 'db' | 'now' | 'config' | 'cipher' | 'logger'>, token: string): Promise<{ challenge: Challenge; burst: typeof BURST }> {
  const s = await requireActiveSession(svc, token)
  const challenge = CHALLENGES[randomInt(CHALLENGES.length)]!
  await svc.db.session.update({ where: { id: s.id }, data: { challenge, challengeIssuedAt: svc.now(), status: 'in_progress' } })
  await deleteCaptures(svc, { sessionId: s.id, kind: 'selfie' })
  return { challenge, burst: BURST }
}
