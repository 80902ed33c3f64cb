/**
 * How likely a request is to want each of a set of labels, learnt from the past requests (see
 * `PastRequests`): the search asks it of two kinds of label.
 *
 * - The kind of operation a request wants (`operationKind`: list, read one, create, change
 *   several at once …). A kind has dozens to hundreds of past requests, across every object:
 *   "more than 100", "offset", "through a view" or "where the name is" asked for a listing of
 *   records, contacts or events alike, "new record trigger" too.
 * - The tool itself. Most tools have a handful of past requests or none, but the most asked have
 *   dozens, and what sets one apart from its siblings ("upsert", "linked records", "anonymous
 *   visitor") is a word or two the nearest past requests, each counted whole, may not weigh.
 *
 * A multinomial logistic regression over the requests' terms and phrases (`termsOf`), each
 * request's vector of unit length, trained by stochastic gradient descent when the index is
 * built, in the past requests' order: the same past requests give the same model.
 */
export class RequestClassifier {
  /** The labels, sorted. */
  private readonly labels: string[];
  /** Per label, its place in `labels`. */
  private readonly labelIndex: Map<string, number>;
  /** Per term, its row in `weights`. */
  private readonly features = new Map<string, number>();
  /** One row of weights (one per label) per term. */
  private readonly weights: Float64Array;
  private readonly bias: Float64Array;
  /** The probabilities of a request of words no past request said (see `liftOf`), per label's place. */
  private readonly prior: Float64Array;

  /**
   * @param examples per past request, its terms and its labels (those of its tools, any of which
   *   answers it).
   * @param training how long and how fast to learn (see `TRAINING`).
   */
  constructor(
    examples: readonly { terms: readonly string[]; labels: readonly string[] }[],
    private readonly training: Training = TRAINING,
  ) {
    this.labels = [...new Set(examples.flatMap((e) => e.labels))].sort();
    const n = this.labels.length;
    this.bias = new Float64Array(n);
    const labelIndex = new Map(this.labels.map((k, i) => [k, i]));
    this.labelIndex = labelIndex;
    const rows = examples
      .filter((e) => e.labels.length > 0 && e.terms.length > 0)
      .map((e) => ({
        features: Int32Array.from(e.terms, (t) => {
          let f = this.features.get(t);
          if (f === undefined) {
            f = this.features.size;
            this.features.set(t, f);
          }
          return f;
        }),
        labels: e.labels.map((k) => labelIndex.get(k)!),
      }));
    this.weights = new Float64Array(this.features.size * n);
    if (n >= 2) this.train(rows);
    this.prior = this.probabilityArray([]);
  }

  /** Stochastic gradient descent over `rows`, in their order (see `TRAINING`). */
  private train(rows: readonly { features: Int32Array; labels: readonly number[] }[]): void {
    const n = this.labels.length;
    const { epochs, rate, l2 } = this.training;
    const p = new Float64Array(n);
    const w = this.weights;
    for (let epoch = 0; epoch < epochs; epoch++) {
      const step = rate / (1 + epoch * 0.2);
      for (const row of rows) {
        // Gradient of the cross-entropy against the request's labels, shared among them.
        const x = 1 / Math.sqrt(row.features.length);
        this.scores(row.features, p, x);
        softmax(p);
        for (const k of row.labels) p[k]! -= 1 / row.labels.length;
        for (let c = 0; c < n; c++) this.bias[c]! -= step * p[c]!;
        for (const f of row.features)
          for (let c = 0, at = f * n; c < n; c++, at++) w[at]! -= step * (p[c]! * x + l2 * w[at]!);
      }
    }
  }

  private scores(features: Int32Array, out: Float64Array, x: number): void {
    out.set(this.bias);
    const n = out.length;
    for (const f of features) for (let c = 0, at = f * n; c < n; c++, at++) out[c]! += this.weights[at]! * x;
  }

  /**
   * Per label, its probability for a request of `terms`. A term no past request said
   * weighs nothing but counts in the vector's length: a request of many words none of them used
   * leans less on the few it shares with them.
   */
  probabilities(terms: readonly string[]): Map<string, number> {
    const p = this.probabilityArray(terms);
    return new Map(p.length === 0 ? [] : this.labels.map((k, i) => [k, p[i]!]));
  }

  /** `probabilities` per label's place in `labels`; empty where one label tells none apart. */
  private probabilityArray(terms: readonly string[]): Float64Array {
    const n = this.labels.length;
    if (n < 2) return new Float64Array(0);
    const known = Int32Array.from(
      terms.map((t) => this.features.get(t)).filter((f): f is number => f !== undefined),
    );
    const p = new Float64Array(n);
    this.scores(known, p, terms.length > 0 ? 1 / Math.sqrt(terms.length) : 0);
    softmax(p);
    return p;
  }

  /**
   * Per label (0 for a label it does not know), how much more likely (or, below 0, less) a request
   * of `terms` makes it than a request of words no past request said: what the words say, not how
   * often each label was asked. Added as it is, the base rate would favour the most asked label
   * for every request, and, where a host has only a few past requests, whichever labels those few
   * were. A function of the label, not a map: a search asks it of a hundred tools at most, where
   * the labels number as many as the tools with past requests.
   */
  liftOf(terms: readonly string[]): (label: string) => number {
    const p = this.probabilityArray(terms);
    if (p.length === 0) return () => 0;
    for (let i = 0; i < p.length; i++) p[i] = p[i]! - this.prior[i]!;
    return (label) => {
      const i = this.labelIndex.get(label);
      return i === undefined ? 0 : p[i]!;
    };
  }
}

/** Passes over the examples, the first step's size (shrinking with each pass), and the L2 penalty. */
export interface Training {
  epochs: number;
  rate: number;
  l2: number;
}

// Thirty passes, the step shrinking with each, and a light L2 penalty: the ranking's figures on the
// real questions' tuning sets held from 20 passes up and for penalties from 0.001 to 0.01.
export const TRAINING: Training = { epochs: 30, rate: 0.3, l2: 1e-3 };

function softmax(v: Float64Array): void {
  let max = -Infinity;
  for (const x of v) max = Math.max(max, x);
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = Math.exp(v[i]! - max);
    sum += v[i]!;
  }
  for (let i = 0; i < v.length; i++) v[i]! /= sum;
}
