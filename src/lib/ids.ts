const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids are UUIDs; anything else can be answered "not found" without asking the database (which would reject the cast). */
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s)
