// The slice of autocannon 8's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    readonly average: number;
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    readonly total: number;
  }
  interface Options {
    readonly url: string;
    readonly connections?: number;
    readonly duration?: number;
    readonly pipelining?: number;
    readonly timeout?: number;
  }
  interface Result {
    readonly requests: Histogram;
    readonly duration: number;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly resets: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
