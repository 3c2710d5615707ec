import { bootstrapNodeService } from '@switchyard/worker';
import { AppModule } from './app/app.module';

void bootstrapNodeService(AppModule, {
  service: 'tool-executor',
  port: Number(process.env['PORT'] ?? process.env['TOOL_EXECUTOR_PORT'] ?? 8083),
});
