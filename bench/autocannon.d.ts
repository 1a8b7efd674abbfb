// Minimal types for the parts of autocannon the benchmarks use (it ships none).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string
      method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
      headers?: Record<string, string>
      body?: string
      connections?: number
      duration?: number
      amount?: number
      pipelining?: number
    }
    interface Histogram {
      average: number
      p50: number
      p90: number
      p99: number
      max: number
    }
    interface Result {
      requests: Histogram
      latency: Histogram
      non2xx: number
      errors: number
      timeouts: number
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>
  export default autocannon
}
