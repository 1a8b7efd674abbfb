import type { Services } from '../../services.js'
import { EncryptedFsMediaStore, type MediaStore } from '../media/media-store.js'

const stores = new WeakMap<object, MediaStore>()

/** The configured media store (one per Services). */
export function mediaStore(svc: Pick<Services, 'config' | 'cipher'>): MediaStore {
  let s = stores.get(svc.cipher)
  if (!s) {
    s = new EncryptedFsMediaStore(svc.config.MEDIA_DIR, svc.cipher)
    stores.set(svc.cipher, s)
  }
  return s
}
