import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import type { Config } from '../../config.js'
import { AppError } from '../../errors.js'
import type { Ambiente } from '../../generated/prisma/enums.js'

/** Addresses a webhook must never reach in production: loopback, private, link-local, metadata, CGNAT, multicast… */
const blocked = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6')

/**
 * IPv4-mapped IPv6 (::ffff:0:0/96) lives in its own list: Node's BlockList matches every IPv4
 * address against an IPv6 rule for that range, so in `blocked` it would forbid all of IPv4.
 */
const mappedRange = new BlockList()
mappedRange.addSubnet('::ffff:0:0', 96, 'ipv6')

export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip)
  if (family === 0) return true
  if (family === 6) {
    if (!mappedRange.check(ip, 'ipv6')) return blocked.check(ip, 'ipv6')
    // IPv4-mapped (::ffff:10.0.0.1 or ::ffff:a00:1) is judged by its IPv4 part; any other spelling is refused
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
    if (dotted?.[1]) return blocked.check(dotted[1], 'ipv4')
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip)
    if (!hex?.[1] || !hex[2]) return true
    const hi = parseInt(hex[1], 16)
    const lo = parseInt(hex[2], 16)
    return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4')
  }
  return blocked.check(ip, 'ipv4')
}

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i

type UrlRules = Pick<Config, 'WEBHOOK_ALLOW_PRIVATE_SANDBOX'> & Partial<Pick<Config, 'WEBHOOK_DEV_INSECURE_PRODUCTION'>>

/** Local targets: sandbox by setting; production only under the development-only escape hatch. */
const allowsPrivate = (config: UrlRules, ambiente: Ambiente) =>
  ambiente === 'sandbox' ? config.WEBHOOK_ALLOW_PRIVATE_SANDBOX : config.WEBHOOK_DEV_INSECURE_PRODUCTION === true

/**
 * Checked when a URL is given. Production: https only, no credentials, no local or private host
 * (literal IPs and local names; the resolved addresses are checked again at delivery time).
 * Sandbox: http is allowed, and local targets too when WEBHOOK_ALLOW_PRIVATE_SANDBOX is on.
 */
export async function validateWebhookUrl(
  config: UrlRules,
  raw: string,
  ambiente: Ambiente,
): Promise<string> {
  const bad = (why: string) => new AppError('invalid_webhook_url', `webhook_url ${why}`)
  if (raw.length > 2048) throw bad('is longer than 2048 characters')
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw bad('is not a valid absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('must use https')
  if (ambiente === 'producao' && url.protocol !== 'https:' && config.WEBHOOK_DEV_INSECURE_PRODUCTION !== true) throw bad('must use https in production')
  if (url.username || url.password) throw bad('must not contain credentials')
  if (url.hash) throw bad('must not contain a fragment')
  if (!allowsPrivate(config, ambiente)) {
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (isIP(host) ? isForbiddenAddress(host) : LOCAL_NAMES.test(host) || !host.includes('.'))
      throw bad('must not point to a loopback, private, link-local or metadata address')
  }
  return url.toString()
}

/**
 * Delivery-time check after DNS resolution (defeats DNS rebinding to internal addresses).
 * Returns the address to connect to, so the request goes exactly where it was checked.
 */
export async function resolveDeliveryAddress(
  config: UrlRules,
  url: URL,
  ambiente: Ambiente,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const addrs = isIP(host) ? [{ address: host, family: isIP(host) as 4 | 6 }] : await lookup(host, { all: true, verbatim: true })
  if (!addrs.length) throw new Error(`no address for ${host}`)
  if (!allowsPrivate(config, ambiente)) {
    const bad = addrs.find((a) => isForbiddenAddress(a.address))
    if (bad) throw new Error(`refused: ${host} resolves to a forbidden address`)
  }
  const first = addrs[0]!
  return { address: first.address, family: first.family === 6 ? 6 : 4 }
}
