import { bootstrapNodeService } from '@switchyard/worker';
import { AppModule } from './app/app.module';

void bootstrapNodeService(AppModule, {
  service: 'retrieval',
  port: Number(process.env['PORT'] ?? process.env['RETRIEVAL_PORT'] ?? 8085),
});
