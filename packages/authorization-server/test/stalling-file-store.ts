import { symlinkSync } from 'node:fs';
import { FileStateStore } from '../src/file-state-store.js';

/**
 * The file store, standing still before its next write until told to go on (`stallNext`): a
 * write under way, for a read or a presentation to come meanwhile.
 */
export class StallingFileStore extends FileStateStore {
  stalled = false;
  private gate: Promise<void> | undefined;

  /** Stalls the next write; what it answers goes on with it. */
  stallNext(): () => void {
    let go = () => {};
    this.gate = new Promise<void>((resolve) => (go = resolve));
    return go;
  }

  protected override async write(text: string, beforeReplace: () => void): Promise<void> {
    const gate = this.gate;
    this.gate = undefined;
    if (gate) {
      this.stalled = true;
      await gate;
      this.stalled = false;
    }
    await super.write(text, beforeReplace);
  }
}

/**
 * The disk full for the next write of `path` by this process: its temporary file opens as
 * /dev/full, where writing fails with ENOSPC once the file is open, as on a full disk (the store
 * takes it away when it fails).
 */
export const fillDisk = (path: string) => symlinkSync('/dev/full', `${path}.${process.pid}.tmp`);
