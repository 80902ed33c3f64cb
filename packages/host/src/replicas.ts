export type { Replicas, ReplicaSessions, SessionRecord, SharedResults, StoredResult } from '@toolhost/redis-store';
