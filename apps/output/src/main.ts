import { bootstrapNodeService } from '@switchyard/worker';
import { AppModule } from './app/app.module';

void bootstrapNodeService(AppModule, {
  service: 'output',
  port: Number(process.env['PORT'] ?? process.env['OUTPUT_PORT'] ?? 8086),
});
