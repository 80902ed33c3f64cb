import { randomBytes } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { FileLock, processAlive } from '@toolhost/credentials';

/** The longest socket path Linux and macOS take (sun_path, less its terminating NUL). */
const MAX_SOCKET_PATH = 103;

/** Owners held by this process, so that one of this process is known alive without asking. */
const heldHere = new Set<string>();

/** Answers whether something listens on the Unix socket at `path` (its owner is alive). */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    // ENOENT (never made, or removed), ECONNREFUSED (its process is gone): nobody.
    socket.once('error', () => resolve(false));
  });
}

/**
 * The one process that may write a file, named in an owner file beside it (`<pid> <random>`)
 * and proven alive by a Unix socket it listens on beside it. A pid alone cannot tell: a host
 * restarted as a container's PID 1 finds pid 1 alive again (itself), and a pid seen from
 * another PID namespace (a second container on the same volume) names nothing here. The socket
 * is the kernel's own answer: connecting succeeds while its process lives, in any namespace on
 * this machine, and is refused the moment it dies. Where the socket's path would be too long,
 * the pid is all there is: one naming this process is a dead run's (a restart as the same pid)
 * unless this process holds it now.
 */
export class FileOwner {
  private readonly token = `${process.pid} ${randomBytes(6).toString('hex')}`;
  private server: Server | undefined;
  private socket: string | undefined;
  private readonly lock: FileLock;

  constructor(
    /** The owner file; the socket and the claim's lock go beside it. */
    readonly path: string,
  ) {
    const socket = `${path}.sock`;
    this.socket = Buffer.byteLength(socket) <= MAX_SOCKET_PATH ? socket : undefined;
    this.lock = new FileLock(`${path}.lock`);
  }

  /** What the owner file holds: `<pid> <random>`, and ` pid` where no socket proves it alive. */
  get id(): string {
    return this.socket ? this.token : `${this.token} pid`;
  }

  /**
   * Claims the file, or answers the pid of the live owner that holds it (the claim is then
   * not made). Claims are made one at a time across processes (a lock file), so two hosts
   * starting together cannot both find the file free.
   */
  claim(): Promise<{ held: true } | { held: false; pid: number }> {
    // An older @toolhost/credentials' FileLock passes no check: the claim is then made unchecked, as before.
    return this.lock.run(async (assertHeld = () => {}) => {
      const holder = readHolder(this.path);
      if (holder && holder !== this.id && (await this.alive(holder)))
        return { held: false as const, pid: Number(holder.split(' ')[0]) };
      const bound = await this.bind();
      try {
        // Where this process stood still past the claim's lock, another may have claimed meanwhile:
        // the claim is then made again (the lock runs it again), and finds that owner. Its socket
        // must stay: this one's takes the socket's path only now, with the owner file, back to back.
        assertHeld();
        if (bound) renameSync(bound.path, this.socket!);
        writeFileSync(this.path, this.id, { mode: 0o600 });
      } catch (e) {
        bound?.server.close();
        throw e;
      }
      if (bound) this.server = bound.server;
      heldHere.add(this.id);
      return { held: true as const };
    });
  }

  /** Gives the file up: the owner file and socket go, if still ours. */
  release(): void {
    heldHere.delete(this.id);
    this.server?.close();
    this.server = undefined;
    if (readHolder(this.path) !== this.id) return;
    for (const file of [this.path, ...(this.socket ? [this.socket] : [])]) {
      try {
        unlinkSync(file);
      } catch {
        // Gone already.
      }
    }
  }

  private async alive(holder: string): Promise<boolean> {
    if (heldHere.has(holder)) return true;
    const [first, , how] = holder.split(' ');
    const pid = Number(first);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    if (how !== 'pid' && (await listening(`${this.path}.sock`))) return true;
    if (how !== 'pid' && existsSync(`${this.path}.sock`)) return false;
    // Its socket is gone (removed from under it): the pid is all there is then too, and a live
    // pid keeps the file refused rather than risk two writers.
    // No socket to ask: this process's own pid is a previous run's (not held here, above).
    return pid !== process.pid && processAlive(pid);
  }

  /**
   * A server listening beside the owner file under a name of its own (as long as the socket's),
   * which the claim renames onto the socket's path once it is made; undefined where this process
   * listens already, or there is no socket.
   */
  private async bind(): Promise<{ server: Server; path: string } | undefined> {
    if (this.server || !this.socket) return undefined;
    // Left by claimants that died before renaming theirs: under the claim's lock, none is live.
    const [dir, base] = [dirname(this.path), `${basename(this.path)}.`];
    for (const name of readdirSync(dir))
      if (name.startsWith(base) && /^[0-9a-f]{4}$/.test(name.slice(base.length)))
        rmSync(join(dir, name), { force: true });
    const path = `${this.path}.${randomBytes(2).toString('hex')}`;
    const server = createServer((connection) => connection.destroy());
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => resolve());
      });
    } catch {
      // A file system without sockets: the owner file then says that its pid is all there is.
      this.socket = undefined;
      return undefined;
    }
    // Never what keeps the process running.
    server.unref();
    return { server, path };
  }
}

function readHolder(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
