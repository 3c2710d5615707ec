import { Module } from '@nestjs/common';
import { ForksService } from './forks.service';
import { ThreadsController } from './threads.controller';
import { ThreadDeletion } from './thread-deletion.service';
import { ThreadsRepository } from './threads.repository';

/** Switchyard's threads (`/v1/threads`): state at any version, the version log, forks. */
@Module({
  controllers: [ThreadsController],
  providers: [ThreadsRepository, ForksService, ThreadDeletion],
  exports: [ThreadsRepository, ForksService, ThreadDeletion],
})
export class ThreadsModule {}
