/**
 * How likely a request is to want each kind of operation (`operationKind`: list, read one,
 * create, change several at once …), learnt from the past requests (see `PastRequests`). A tool
 * has a handful of past requests, too few to learn its words from; a kind of operation has
 * dozens to hundreds, across every object: "more than 100", "offset", "through a view" or "where
 * the name is" asked for a listing of records, contacts or events alike, "new record trigger" too.
 *
 * A multinomial logistic regression over the requests' terms and phrases (`termsOf`), each
 * request's vector of unit length, trained by stochastic gradient descent when the index is
 * built, in the past requests' order: the same past requests give the same model.
 */
export class AskedOperations {
  private readonly kinds: string[];
  /** Per term, its row in `weights`. */
  private readonly features = new Map<string, number>();
  /** One row of weights (one per kind) per term. */
  private readonly weights: Float64Array;
  private readonly bias: Float64Array;
  /** The probabilities of a request of words no past request said (see `lift`). */
  private readonly prior: Map<string, number>;

  /** @param examples per past request, its terms and the kinds of operation of its tools (any of them answers it). */
  constructor(examples: readonly { terms: readonly string[]; kinds: readonly string[] }[]) {
    this.kinds = [...new Set(examples.flatMap((e) => e.kinds))].sort();
    const n = this.kinds.length;
    this.bias = new Float64Array(n);
    const kindIndex = new Map(this.kinds.map((k, i) => [k, i]));
    const rows = examples
      .filter((e) => e.kinds.length > 0 && e.terms.length > 0)
      .map((e) => ({
        features: Int32Array.from(e.terms, (t) => {
          let f = this.features.get(t);
          if (f === undefined) {
            f = this.features.size;
            this.features.set(t, f);
          }
          return f;
        }),
        kinds: e.kinds.map((k) => kindIndex.get(k)!),
      }));
    this.weights = new Float64Array(this.features.size * n);
    if (n >= 2) this.train(rows);
    this.prior = this.probabilities([]);
  }

  /** Stochastic gradient descent over `rows`, in their order (see `TRAINING`). */
  private train(rows: readonly { features: Int32Array; kinds: readonly number[] }[]): void {
    const n = this.kinds.length;
    const { epochs, rate, l2 } = TRAINING;
    const p = new Float64Array(n);
    const w = this.weights;
    for (let epoch = 0; epoch < epochs; epoch++) {
      const step = rate / (1 + epoch * 0.2);
      for (const row of rows) {
        // Gradient of the cross-entropy against the request's kinds, shared among them.
        const x = 1 / Math.sqrt(row.features.length);
        this.scores(row.features, p, x);
        softmax(p);
        for (const k of row.kinds) p[k]! -= 1 / row.kinds.length;
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
   * Per kind of operation, its probability for a request of `terms`. A term no past request said
   * weighs nothing but counts in the vector's length: a request of many words none of them used
   * leans less on the few it shares with them.
   */
  probabilities(terms: readonly string[]): Map<string, number> {
    const n = this.kinds.length;
    // One kind tells none apart.
    if (n < 2) return new Map();
    const known = Int32Array.from(
      terms.map((t) => this.features.get(t)).filter((f): f is number => f !== undefined),
    );
    const p = new Float64Array(n);
    this.scores(known, p, terms.length > 0 ? 1 / Math.sqrt(terms.length) : 0);
    softmax(p);
    return new Map(this.kinds.map((k, i) => [k, p[i]!]));
  }

  /**
   * Per kind of operation, how much more likely (or, below 0, less) a request of `terms` makes it
   * than a request of words no past request said: what the words say, not how often each kind
   * was asked. Added as it is, the base rate would favour the most asked kind for every request,
   * and, where a host has only a few past requests, whichever kinds those few were.
   */
  lift(terms: readonly string[]): Map<string, number> {
    const p = this.probabilities(terms);
    for (const [k, v] of p) p.set(k, v - (this.prior.get(k) ?? 0));
    return p;
  }
}

// Thirty passes, the step shrinking with each, and a light L2 penalty: the ranking's figures on the
// real questions' tuning sets held from 20 passes up and for penalties from 0.001 to 0.01.
const TRAINING = { epochs: 30, rate: 0.3, l2: 1e-3 };

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
