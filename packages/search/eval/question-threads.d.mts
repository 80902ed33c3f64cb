/** Where a question was asked: its thread's id (`owner/repo#N`, a forum's own) and address. */
export interface AskedWhere {
  id: string;
  source: string;
}
export interface Threads {
  ids: Set<string>;
  addresses: Set<string>;
}
export declare function threadAddress(url: string): string;
export declare function threadId(id: string): string;
export declare function threadIds(question: AskedWhere): string[];
export declare function threadsOf(questions: readonly AskedWhere[]): Threads;
export declare function askedIn(threads: Threads, question: AskedWhere): boolean;
