import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { OriginFile } from '@switchyard/contracts';
import { storeNotConfigured } from '@switchyard/persistence';
import type { ObjectReader } from './object-store';

/** A file that cannot be read: refused, missing, too large, or in a store this deployment does not read. */
export class FileSourceError extends Error {}

/** Reads the run's tenant's uploaded files by id. */
export interface UploadReader {
  read(fileId: string, maxBytes: number): Promise<Buffer>;
}

export interface FileSourceOptions {
  /** Directory local files are read from; nothing outside it is read. */
  root: string;
  maxBytes: number;
  /** The object stores (mapping.provider other than local); none: such a file cannot be read. */
  objects?: ObjectReader;
  /** The tenant's uploaded files (`file_id`); none: such a file cannot be read. */
  uploads?: UploadReader;
  signal?: AbortSignal;
}

/** The path of a file under the root, as the run gave it (`mapping.path` of a local mapping, or `local_path`). */
export function localPathOf(file: OriginFile): string {
  if (file.mapping?.provider === 'local') {
    return file.mapping.path;
  }
  if (file.local_path !== undefined) {
    return file.local_path;
  }
  if (file.mapping) {
    throw new FileSourceError(`provider ${file.mapping.provider} is an object store, not a local path`);
  }
  throw new FileSourceError('the file has neither a local_path nor a mapping');
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Reads a file of the run: an upload from the tenant's file store (`file_id`), from its object store
 * (an object store mapping, `<bucket>/<key>`), else from under the root. Refuses paths that leave the root (`..`, absolute paths elsewhere, symlinks
 * pointing out) and files over the size cap.
 */
export async function readOriginFile(file: OriginFile, opts: FileSourceOptions): Promise<Buffer> {
  if (file.file_id !== undefined) {
    if (!opts.uploads) {
      throw new FileSourceError('uploaded files cannot be read here');
    }
    return opts.uploads.read(file.file_id, opts.maxBytes);
  }
  const mapping = file.mapping;
  if (mapping && mapping.provider !== 'local') {
    if (!opts.objects) {
      throw new FileSourceError(storeNotConfigured(mapping.provider));
    }
    return opts.objects.read(mapping.provider, mapping.path, opts.maxBytes, opts.signal);
  }
  const given = localPathOf(file);
  if (given.trim() === '' || given.includes('\0')) {
    throw new FileSourceError('the file path is empty or invalid');
  }
  const root = resolve(opts.root);
  const path = resolve(root, given);
  if (!inside(root, path)) {
    throw new FileSourceError(`path "${given}" escapes the files root`);
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new FileSourceError(`file "${given}" not found`);
    }
    throw new FileSourceError(`file "${given}" cannot be read: ${(err as Error).message}`);
  }
  if (!inside(await realpath(root), real)) {
    throw new FileSourceError(`path "${given}" escapes the files root (through a symbolic link)`);
  }
  // Size checked on the opened handle, and the read bounded, so a file growing meanwhile changes nothing.
  const handle = await open(real, 'r').catch((err: Error) => {
    throw new FileSourceError(`file "${given}" cannot be read: ${err.message}`);
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new FileSourceError(`"${given}" is not a regular file`);
    }
    if (stat.size > opts.maxBytes) {
      throw new FileSourceError(`file is ${stat.size} bytes, over the limit of ${opts.maxBytes} bytes`);
    }
    const buf = Buffer.alloc(Math.min(stat.size, opts.maxBytes + 1));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > opts.maxBytes) {
      throw new FileSourceError(`file is over the limit of ${opts.maxBytes} bytes`);
    }
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
