// Counters and a histogram for the hot path. prom-client's labelled children
// hash their label values into a string and validate them on every inc() and
// observe(); here a labelled series is a cell created once, bumped in place
// (no allocation, no hashing), and read only when Prometheus scrapes. They are
// prom-client metrics all the same (registered, named, exposed in the usual
// text format), so the registry and the exposition are prom-client's.
import client from 'prom-client';

type CounterValues = Awaited<ReturnType<client.Counter<string>['get']>>;
type HistogramValues = Awaited<ReturnType<client.Histogram<string>['get']>>;
/** prom-client's typings declare the metric type an enum; at run time (and in the exposition) it is the string. */
const HISTOGRAM = 'histogram' as unknown as HistogramValues['type'];

/** One series of a counter: add to `value`. */
export interface CounterCell {
  value: number;
}

/** One series of a histogram: counts per bucket (not cumulative), their sum and count. */
export class HistogramCell {
  readonly #bounds: readonly number[];
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        (this.counts[i] as number)++;
        return;
      }
    }
  }
}

/** Series by their label values, in the metric's label order. */
class Cells<Cell> {
  readonly #byKey = new Map<string, { readonly labels: Record<string, string>; readonly cell: Cell }>();

  constructor(
    readonly labelNames: readonly string[],
    readonly create: () => Cell,
  ) {}

  /** The cell of these label values (created at the first call: keep it, this call allocates). */
  get(values: readonly string[]): Cell {
    if (values.length !== this.labelNames.length) throw new Error(`expected ${this.labelNames.length} label values, got ${values.length}`);
    const key = values.join('\u0000');
    let entry = this.#byKey.get(key);
    if (entry === undefined) {
      entry = { labels: Object.fromEntries(this.labelNames.map((name, i) => [name, values[i] as string])), cell: this.create() };
      this.#byKey.set(key, entry);
    }
    return entry.cell;
  }

  entries(): IterableIterator<{ readonly labels: Record<string, string>; readonly cell: Cell }> {
    return this.#byKey.values();
  }
}

/** A counter whose series are cells. */
export class CellCounter extends client.Counter<string> {
  readonly #cells: Cells<CounterCell>;

  constructor(configuration: client.CounterConfiguration<string> & { readonly labelNames: readonly string[] }) {
    super(configuration);
    this.#cells = new Cells(configuration.labelNames, () => ({ value: 0 }));
  }

  cell(...values: string[]): CounterCell {
    return this.#cells.get(values);
  }

  override async get(): Promise<CounterValues> {
    const own = await super.get();
    const values = [...own.values];
    for (const { labels, cell } of this.#cells.entries()) values.push({ labels, value: cell.value });
    return { ...own, values };
  }
}

/** A histogram whose series are cells (the buckets given here, `+Inf` added). */
export class CellHistogram extends client.Histogram<string> {
  readonly #cells: Cells<HistogramCell>;
  readonly #bounds: readonly number[];
  readonly #name: string;
  readonly #help: string;

  constructor(configuration: client.HistogramConfiguration<string> & { readonly labelNames: readonly string[]; readonly buckets: readonly number[] }) {
    super(configuration);
    this.#name = configuration.name;
    this.#help = configuration.help;
    this.#bounds = [...configuration.buckets];
    this.#cells = new Cells(configuration.labelNames, () => new HistogramCell(this.#bounds));
  }

  cell(...values: string[]): HistogramCell {
    return this.#cells.get(values);
  }

  override async get(): Promise<HistogramValues> {
    const values: HistogramValues['values'] = [];
    for (const { labels, cell } of this.#cells.entries()) {
      // A series nothing was observed in is not exposed (as prom-client's own children).
      if (cell.count === 0) continue;
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += cell.counts[i] as number;
        values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${this.#name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: cell.count, metricName: `${this.#name}_bucket` });
      values.push({ labels, value: cell.sum, metricName: `${this.#name}_sum` });
      values.push({ labels, value: cell.count, metricName: `${this.#name}_count` });
    }
    return { name: this.#name, help: this.#help, type: HISTOGRAM, aggregator: 'sum', collect: () => undefined, values };
  }

  /** The registry reads histograms through this one (prom-client's would read its own, empty, series). */
  async getForPromString(): Promise<HistogramValues> {
    return this.get();
  }
}
