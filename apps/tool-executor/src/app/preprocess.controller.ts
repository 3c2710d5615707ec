import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { JetStreamContext } from '@switchyard/jetstream';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';
import { FileStore, FileTooLargeError } from '@switchyard/persistence';
import { FileSourceError } from '../preprocess/file-source';
import { ObjectStores } from '../preprocess/object-store';
import { preprocessFiles } from '../preprocess/preprocess';
import { ToolExecutorConfig } from './tool-executor.config';

// Intake fans out to preprocess and memory; the join dispatches the union of their `next`, and
// memory answers ['planner'], so this does too (the union holds one planner task).
const NEXT = ['planner'];

/** `preprocess`: reads the run's files and parses them into `preprocessed_files`. */
@Controller()
export class PreprocessController {
  private readonly objects: ObjectStores;

  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ToolExecutorConfig) private readonly config: ToolExecutorConfig,
    @Inject(FileStore) private readonly files: FileStore,
  ) {
    this.objects = new ObjectStores(config.objectStores);
  }

  @NodeHandler({
    name: 'preprocess',
    description: "Reads the run's files (text, markdown, CSV, JSON, PDF) into preprocessed_files.",
    tool: false,
  })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.preprocess(input));
  }

  private async preprocess({ task, state, signal }: NodeInput): Promise<NodeOutput> {
    const out = await preprocessFiles(state, {
      root: this.config.filesRoot,
      maxBytes: this.config.filesMaxBytes,
      objects: this.objects,
      uploads: { read: (id, max) => this.readUpload(task.tenant_id, id, max) },
      signal,
    });
    const stores = this.config.objectStores.map((c) => c.provider);
    return {
      preparation: `Read ${out.files.length} of ${state.origin_files.length} file(s) from ${this.config.filesRoot}${stores.length ? ` and the object stores (${stores.join(', ')})` : ''}.`,
      summary: out.summary,
      result: {
        files: out.files.map((f) => ({
          name: f.name,
          bucket: f.bucket,
          ...(f.error ? { error: f.error } : {}),
        })),
      },
      patch: out.patch,
      ...(out.context.length > 0 ? { context: out.context } : {}),
      next: NEXT,
    };
  }

  /** An uploaded file of the task's tenant (another tenant's is not found), within the size cap. */
  private async readUpload(tenantId: string | undefined, fileId: string, maxBytes: number): Promise<Buffer> {
    if (!tenantId) {
      throw new FileSourceError('the task names no tenant: its uploaded files cannot be read');
    }
    let read: Awaited<ReturnType<FileStore['read']>>;
    try {
      read = await this.files.read(tenantId, fileId, { maxBytes });
    } catch (err) {
      if (err instanceof FileTooLargeError) {
        throw new FileSourceError(`uploaded ${err.message}`);
      }
      throw err;
    }
    if (!read) {
      throw new FileSourceError(`uploaded file ${fileId} not found`);
    }
    return read.content;
  }
}
