import { Module } from '@nestjs/common';
import { FilesController } from './files.controller';

/** The tenant's files (uploads for runs, files their components made); FileStore is the core module's. */
@Module({
  controllers: [FilesController],
})
export class FilesModule {}
