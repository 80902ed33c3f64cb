import type { WriteSafety, WriteSafetyInput } from '@toolhost/write-safety';

/** What the host uses of write safety: its writes, previews and applies, and the flush at shutdown. */
export type Writes<Wait> = Pick<WriteSafety<Wait>, 'call' | 'preview' | 'apply' | 'flush'>;

/**
 * The host's write safety (previews, confirmations, idempotency keys). Where its records live
 * in memory it is made at the first write, preview or apply: a host whose callers only read
 * never loads its modules, and a start does not wait for them. Where they live in the host's
 * sealed file or the replicas' store it is made now, as the host starts, so that a wrong key or
 * an unreadable file is reported then and not at the first write.
 */
export async function writeSafetyOf<Wait>(input: WriteSafetyInput<Wait>): Promise<Writes<Wait>> {
  const make = async () => (await import('@toolhost/write-safety')).createWriteSafety(input);
  if (input.shared || input.file) return make();
  let made: Promise<WriteSafety<Wait>> | undefined;
  const writes = () => {
    made ??= make();
    return made;
  };
  return {
    call: async (name, args, o) => (await writes()).call(name, args, o),
    preview: async (name, args, userId) => (await writes()).preview(name, args, userId),
    apply: async (previewId, o) => (await writes()).apply(previewId, o),
    // Nothing written yet where nothing was made.
    flush: async () => (made ? (await made).flush() : undefined),
  };
}
