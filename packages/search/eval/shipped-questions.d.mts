/** A question people asked in public, with the tools that answer it and where it was asked. */
export interface AskedQuestion {
  id: string;
  question: string;
  /** Canonical names (`Set.Tool`). */
  tools: string[];
  source: string;
  half: 'open' | 'tuning';
}
/** Every question of the evaluation's `real-questions*.json` but the held-out half's. */
export declare function shippedQuestions(): AskedQuestion[];
