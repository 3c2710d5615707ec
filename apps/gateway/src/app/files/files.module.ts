import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FileStore } from '@switchyard/persistence';
import { FilesController } from './files.controller';

/** The tenant's files (uploads for graph runs, files their components made). */
@Module({
  controllers: [FilesController],
  providers: [
    { provide: FileStore, useFactory: (ds: DataSource) => new FileStore(ds), inject: [DataSource] },
  ],
})
export class FilesModule {}
