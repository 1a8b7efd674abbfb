import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const DATA = process.env.SHARED_DATA_DIR ?? path.resolve(import.meta.dirname, '../../../shared/data')
export const FACES = path.join(DATA, 'faces')
export const DOCS = path.join(DATA, 'documents')
export const MRZ_MODEL = path.join(DATA, 'models', 'mrz.traineddata.gz')
export const hasData = fs.existsSync(FACES) && fs.existsSync(DOCS)
if (!hasData) console.warn(`[analysis tests] ${DATA} is absent: tests on real images are skipped`)

export const tmpDir = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix))
