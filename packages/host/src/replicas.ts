export type {
  ReplicaSessions,
  Replicas,
  SessionRecord,
  SharedResults,
  StoredResult,
} from '@toolhost/redis-store';
