import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isRecord, type Sealed, TokenCipher, TokenStoreError } from '@toolhost/credentials';

export const JOURNAL_FORMAT = 'toolhost-write-records-v2';

/** One change: a key's value until `expires` (ms since the epoch), or its removal (`null`). */
export type JournalEntry = [key: string, value: string | null, expires: number];

/** The first line: the format, the salt of the key derivation, and a sealed check of the key. */
type Header = { format: string; salt: string; check: Sealed };

const isSealed = (v: unknown): v is Sealed =>
  isRecord(v) && typeof v.iv === 'string' && typeof v.tag === 'string' && typeof v.data === 'string';

const isEntry = (v: unknown): v is JournalEntry =>
  Array.isArray(v) &&
  v.length === 3 &&
  typeof v[0] === 'string' &&
  (typeof v[1] === 'string' || v[1] === null) &&
  typeof v[2] === 'number';

/** Entries written per step of a compaction: the event loop runs between steps. */
const COMPACTION_STEP = 500;

/**
 * An append-only file of sealed changes, so that one change costs one short append (the whole
 * store rewritten at each change stalled the event loop for a second with a full file).
 * Line one names the format and the salt; each further line is one change, AES-256-GCM sealed
 * with the key derived from TOOLHOST_TOKEN_KEY. Appends are group-committed (one write and one
 * fsync for the changes made meanwhile). A crash mid-append leaves a last line without its
 * newline, ignored on reading and cut off before the next append. When most lines are dead
 * (overwritten, removed, expired), the live entries are written to a new file in steps, beside
 * the appends that go on, and it replaces the old one.
 *
 * Written here rather than taken from a library: the records must be sealed line by line with
 * the host's key and share its single-writer rule; embedded databases (SQLite, LevelDB) would
 * add a native dependency to a host that has none.
 */
export class RecordJournal {
  private cipher: TokenCipher | undefined;
  private handle: FileHandle | undefined;
  /** Bytes of the file up to its last whole line: appends go after them. */
  private goodBytes = 0;
  /** Change lines in the file (live or dead), to tell when compacting pays. */
  private lines = 0;
  private pending: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  /** While compacting: the lines made since its snapshot, for the new file. */
  private tail: string[] | undefined;
  private compaction: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private readonly secret: string,
    private readonly label: string,
    /** Compacts once there are more than this many lines and twice as many as live entries. */
    private readonly compactAfter = 1000,
  ) {}

  /** The file as `read` found it (inode, size, mtime), to tell whether another wrote it since. */
  private readStamp: string | undefined;

  /** Whether the file was there when read, or has been created since. */
  get exists(): boolean {
    return this.readStamp !== undefined;
  }

  /** Whether the file is as `read` left it (no other writer since): it need not be read again. */
  unchangedSinceRead(): boolean {
    return this.readStamp !== undefined && this.readStamp === this.stamp();
  }

  private stamp(): string | undefined {
    try {
      const st = statSync(this.file);
      return `${st.ino} ${st.size} ${st.mtimeMs}`;
    } catch {
      return undefined;
    }
  }

  /** Change lines written since the file was opened or compacted (tests and gauges). */
  get lineCount(): number {
    return this.lines;
  }

  /**
   * The entries the file holds, later lines over earlier ones; undefined when there is no file.
   * A last line without its newline is a write cut short by a crash: left out.
   */
  read(): Map<string, { value: string; expires: number }> | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        this.readStamp = undefined;
        return undefined;
      }
      throw new TokenStoreError(`Cannot read ${this.label.toLowerCase()} ${this.file}.`);
    }
    const stamp = this.stamp();
    const whole = text.lastIndexOf('\n') + 1;
    const lines = text.slice(0, whole).split('\n');
    lines.pop();
    const [first, ...changes] = lines;
    this.openHeader(first);
    const entries = new Map<string, { value: string; expires: number }>();
    for (const line of changes) {
      const [key, value, expires] = this.openLine(line);
      if (value === null) entries.delete(key);
      else entries.set(key, { value, expires });
    }
    this.goodBytes = Buffer.byteLength(text.slice(0, whole));
    this.lines = changes.length;
    this.readStamp = stamp;
    return entries;
  }

  private openHeader(line: string | undefined): void {
    let header: unknown;
    try {
      header = JSON.parse(line ?? '');
    } catch {
      header = undefined;
    }
    if (!isRecord(header) || typeof header.format !== 'string')
      throw new TokenStoreError(
        `${this.label} ${this.file} is not a toolhost write-records journal; restore it or remove it to start empty.`,
      );
    if (header.format !== JOURNAL_FORMAT || typeof header.salt !== 'string' || !isSealed(header.check))
      throw new TokenStoreError(`${this.label} ${this.file} has an unknown format.`);
    if (this.cipher?.salt.toString('base64') !== header.salt)
      this.cipher = new TokenCipher(this.secret, Buffer.from(header.salt, 'base64'));
    if (this.open(header.check) !== JOURNAL_FORMAT) throw this.undecryptable();
  }

  private openLine(line: string): JournalEntry {
    let sealed: unknown;
    try {
      sealed = JSON.parse(line);
    } catch {
      throw this.undecryptable();
    }
    if (!isSealed(sealed)) throw this.undecryptable();
    const entry = this.open(sealed);
    if (!isEntry(entry)) throw this.undecryptable();
    return entry;
  }

  private open(sealed: Sealed): unknown {
    try {
      return this.cipher!.open(sealed, JOURNAL_FORMAT);
    } catch {
      throw this.undecryptable();
    }
  }

  private undecryptable(): TokenStoreError {
    return new TokenStoreError(
      `Cannot decrypt ${this.label.toLowerCase()} ${this.file}: wrong key, or the file was altered.`,
    );
  }

  private header(): string {
    this.cipher ??= new TokenCipher(this.secret);
    const header: Header = {
      format: JOURNAL_FORMAT,
      salt: this.cipher.salt.toString('base64'),
      check: this.cipher.seal(JOURNAL_FORMAT, JOURNAL_FORMAT),
    };
    return `${JSON.stringify(header)}\n`;
  }

  private line(entry: JournalEntry): string {
    this.cipher ??= new TokenCipher(this.secret);
    return JSON.stringify(this.cipher.seal(entry, JOURNAL_FORMAT));
  }

  /**
   * Writes a new file holding `entries` alone, at once (temp file, fsync, rename): the start of
   * a journal. Only before any append.
   */
  create(entries: Iterable<JournalEntry>): void {
    const temp = this.tempName();
    const fd = openSync(temp, 'w', 0o600);
    let count = 0;
    try {
      const parts = [this.header()];
      for (const entry of entries) {
        parts.push(`${this.line(entry)}\n`);
        count += 1;
      }
      const text = parts.join('');
      writeSync(fd, text);
      fsyncSync(fd);
      this.goodBytes = Buffer.byteLength(text);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temp, this.file);
    } catch (e) {
      try {
        unlinkSync(temp);
      } catch {
        // Not there.
      }
      throw e;
    }
    this.lines = count;
    this.readStamp = this.stamp();
  }

  /**
   * Appends a change; settles once it is on disk. `live` tells how many entries the store
   * holds now, to start a compaction when most lines are dead.
   */
  append(entry: JournalEntry, live: () => Iterable<JournalEntry>, liveCount: number): Promise<void> {
    const line = this.line(entry);
    this.pending.push(line);
    this.tail?.push(line);
    if (!this.queued) {
      const run = async () => {
        this.queued = undefined;
        await this.writeLines(this.pending.splice(0));
      };
      const next = this.writing.then(run, run);
      this.queued = next;
      this.writing = next;
    }
    const written = this.queued!;
    void written.then(
      () => {
        if (!this.compaction && this.lines > this.compactAfter && this.lines > 2 * liveCount)
          this.compaction = this.compact(live).finally(() => {
            this.compaction = undefined;
          });
      },
      () => {},
    );
    return written;
  }

  private async writeLines(lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    const handle = await this.appender();
    const text = `${lines.join('\n')}\n`;
    try {
      await handle.write(text, this.goodBytes);
      await handle.datasync();
    } catch (e) {
      // Whatever part was written is cut off before the next append (see appender).
      await this.closeHandle();
      throw e;
    }
    this.goodBytes += Buffer.byteLength(text);
    this.lines += lines.length;
  }

  /** The open file, cut back to its last whole line (a crash or a failed write left a part). */
  private async appender(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    const handle = await open(this.file, 'r+');
    try {
      if ((await handle.stat()).size !== this.goodBytes) await handle.truncate(this.goodBytes);
    } catch (e) {
      await handle.close();
      throw e;
    }
    this.handle = handle;
    return handle;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => {});
  }

  /**
   * Writes the live entries to a new file in steps (the event loop and the appends go on
   * meanwhile), then, between two appends, adds the lines made since and puts it in place.
   */
  private async compact(live: () => Iterable<JournalEntry>): Promise<void> {
    const tail: string[] = [];
    this.tail = tail;
    const snapshot = [...live()];
    const temp = this.tempName();
    let handle: FileHandle | undefined;
    let bytes = 0;
    try {
      handle = await open(temp, 'w', 0o600);
      const header = this.header();
      await handle.write(header);
      bytes += Buffer.byteLength(header);
      for (let i = 0; i < snapshot.length; i += COMPACTION_STEP) {
        const text = snapshot
          .slice(i, i + COMPACTION_STEP)
          .map((e) => `${this.line(e)}\n`)
          .join('');
        await handle.write(text);
        bytes += Buffer.byteLength(text);
      }
      const into = handle;
      const swap = async () => {
        // Exclusive: no append runs now. Lines made since the snapshot follow it.
        this.tail = undefined;
        const text = tail.length > 0 ? `${tail.join('\n')}\n` : '';
        try {
          if (text) await into.write(text);
          await into.sync();
        } finally {
          await into.close();
        }
        await rename(temp, this.file);
        await this.closeHandle();
        this.goodBytes = bytes + Buffer.byteLength(text);
        this.lines = snapshot.length + tail.length;
      };
      const swapped = this.writing.then(swap, swap);
      this.writing = swapped.catch(() => {});
      // Lines made from now on wait for the new file.
      this.queued = undefined;
      handle = undefined;
      await swapped;
    } catch {
      // The old file stays whole and in use; the next append may try again.
      this.tail = undefined;
      await handle?.close().catch(() => {});
      await unlink(temp).catch(() => {});
    }
  }

  /** Removes temp files a writer stopped mid-compaction left (only the file's one writer calls it). */
  removeLeftovers(): void {
    const dir = dirname(this.file);
    const prefix = `${basename(this.file)}.`;
    for (const name of readdirSync(dir))
      if (name.startsWith(prefix) && name.endsWith('.tmp')) rmSync(join(dir, name), { force: true });
  }

  private tempName(): string {
    return `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  }

  /** Waits for pending appends and a running compaction, then closes the file. */
  async flush(): Promise<void> {
    try {
      await this.compaction;
      await this.writing;
    } finally {
      await this.closeHandle();
    }
  }
}
