import { spawn } from 'node:child_process';
import { createCipheriv, createDecipheriv, createHmac, randomBytes, scryptSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sealed, ValueCipher } from '../ports.js';

/** A real redis-server on a free loopback port, keeping nothing on disk. */
export interface LocalRedis {
  url: string;
  /** Freezes it (SIGSTOP): its connections stay open, nothing is answered. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts redis-server (it must be on PATH: the shared-store tests are no test without it). */
export async function startLocalRedis(): Promise<LocalRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'redis-store-test-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`redis-server exited before it was ready: ${said}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async stop() {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** AES-256-GCM keyed by a secret and a salt, as the host's TokenCipher (which this package cannot depend on). */
export class AesCipher implements ValueCipher {
  private readonly key: Buffer;
  constructor(
    secret: string,
    readonly salt: Buffer = randomBytes(16),
  ) {
    this.key = scryptSync(secret, salt, 32);
  }
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(purpose).digest();
  }
  seal(value: unknown, boundTo?: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    if (boundTo !== undefined) cipher.setAAD(Buffer.from(boundTo));
    const data = Buffer.concat([cipher.update(JSON.stringify(value)), cipher.final()]);
    return {
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }
  open(sealed: Sealed, boundTo?: string): unknown {
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    if (boundTo !== undefined) decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return JSON.parse(
      Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString(),
    );
  }
}
